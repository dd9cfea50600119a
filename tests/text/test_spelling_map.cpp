// Loading `misspelling||correction` files: good files, and every malformed one gives a
// ParseError naming the file and the line.
#include "fixtures.h"
#include "text/spelling_map.h"

using namespace linkscope;
using namespace linkscope::text;

class TestSpellingMap : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    // Loads content and expects a ParseError at `line` whose text mentions `fragment`.
    void expectError(const char* name, std::string_view content, std::size_t line, const std::string& fragment) {
        const auto path = dir_.write(name, content);
        LINKSCOPE_EXPECT_PARSE_ERROR(SpellingMap::load(path), name, line, fragment);
    }

private Q_SLOTS:
    void loadsPairs() {
        const auto path = dir_.write(
            "ok.txt", "hemmorhage||haemorrhage\r\n\n  tumours || tumors \natrialfibrillation||atrial fibrillation");
        const auto map = SpellingMap::load(path);
        QCOMPARE(map.size(), std::size_t{3});
        QVERIFY(map.find("hemmorhage"));
        QCOMPARE(*map.find("hemmorhage"), std::string("haemorrhage"));
        QCOMPARE(*map.find("tumours"), std::string("tumors"));  // fields are trimmed
        QCOMPARE(*map.find("atrialfibrillation"), std::string("atrial fibrillation"));
        QVERIFY(!map.find("tumors"));
        QVERIFY(!map.find(""));
    }

    void repeatedIdenticalEntryIsADiagnostic() {
        const auto path = dir_.write("dup.txt", "abcess||abscess\nsytem||system\nabcess||abscess\n");
        std::vector<Diagnostic> diagnostics;
        const auto map = SpellingMap::load(path, &diagnostics);
        QCOMPARE(map.size(), std::size_t{2});
        QCOMPARE(diagnostics.size(), std::size_t{1});
        QCOMPARE(diagnostics[0].line, std::size_t{3});
        QVERIFY(diagnostics[0].message.find("line 1") != std::string::npos);
        // Without a sink the file still loads.
        QCOMPARE(SpellingMap::load(path).size(), std::size_t{2});
    }

    void conflictingDuplicateIsAnError() {
        expectError("conflict.txt", "le||leg\nfist||first\nle||the\n", 3, "at line 1");
    }
    void truncatedLineWithoutSeparator() { expectError("truncated.txt", "fist||first\nhemmorh", 2, "no '||'"); }
    void singleBarIsNotASeparator() { expectError("single-bar.txt", "fist|first\n", 1, "no '||'"); }
    void emptyCorrection() { expectError("empty-correction.txt", "a||b\n\nfist||   \n", 3, "empty correction"); }
    void emptyMisspelling() { expectError("empty-misspelling.txt", "||first\n", 1, "empty misspelling"); }
    void extraField() { expectError("extra.txt", "a||b||c\n", 1, "more than one"); }
    void whitespaceInMisspelling() {
        expectError("space.txt", "ok||fine\natrial fibrilation||atrial fibrillation\n", 2, "whitespace");
    }
    void emptyFile() { expectError("empty.txt", "", 0, "no 'misspelling||correction' entries"); }
    void blankLinesOnly() { expectError("blank.txt", "\n  \n\t\n", 0, "no 'misspelling||correction' entries"); }
    void nonUtf8() { expectError("latin1.txt", "fist||first\ncaf\xe9||cafe\n", 2, "UTF-8"); }
    void hugeLineIsAnError() {
        // No correction is anywhere near 64 KiB long: such a line is a damaged or wrong file.
        const std::string huge(SpellingMap::kMaxLineBytes + 10, 'x');
        expectError("huge.txt", "fist||first\n" + huge + "||y\n", 2, "line longer than");
    }
    void missingFile() {
        LINKSCOPE_EXPECT_PARSE_ERROR(SpellingMap::load(dir_.path("absent.txt")), "absent.txt", 0,
                                     "absent.txt: no such file");
    }

    void addValidates() {
        SpellingMap map;
        QVERIFY(map.add("sytem", "system"));
        QVERIFY(!map.add("sytem", "system"));
        QVERIFY_THROWS_EXCEPTION(Error, map.add("sytem", "systems"));
        QVERIFY_THROWS_EXCEPTION(Error, map.add("", "x"));
        QVERIFY_THROWS_EXCEPTION(Error, map.add("x", ""));
        QVERIFY_THROWS_EXCEPTION(Error, map.add("two\u00a0words", "x"));  // Unicode white space too
        QCOMPARE(map.size(), std::size_t{1});
    }
};

QTEST_APPLESS_MAIN(TestSpellingMap)
#include "test_spelling_map.moc"
