// Malformed PubTator input: every problem is a ParseError naming the file and the line (or,
// for offset problems in lenient mode, a Diagnostic), never a crash and never a silent loss.
#include <algorithm>

#include "corpus/pubtator_reader.h"
#include "corpus_fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;
using test::FixtureDir;

namespace {
// A valid first document; problems are appended after it so that line numbers are > 1.
constexpr std::string_view kGood =
    "1|t|Lung cancer.\n"
    "1|a|Breast cancer.\n"
    "1\t0\t11\tLung cancer\tDisease\tD008175\n";
// Lines 1-3 above; the bad line of each case is line 4.
}  // namespace

class TestPubTatorMalformed : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    // Writes kGood + `line` as bad.txt and expects an error at line 4.
    void expectLine4(std::string_view line, std::string_view fragment, const PubTatorOptions& options = {}) {
        const auto path = dir_.write("bad.txt", std::string(kGood) + std::string(line) + "\n");
        const auto check = test::checkParseError([&] { readPubTator(path, options); }, "bad.txt", 4, fragment);
        QVERIFY2(check.ok(), (std::string(line) + ": " + check.problem).c_str());
    }

private Q_SLOTS:
    // A byte-order mark would join the first PMID ("\xEF\xBB\xBF1" is not "1") and CR-only line
    // ends made the whole file one line: one document without mentions. Both read as the plain file.
    void byteOrderMarkAndCarriageReturnLineEnds() {
        const std::string two = std::string(kGood) + "\n2|t|Gout.\n2|a|Pain.\n2\t0\t4\tGout\tDisease\tD006073\n";
        std::string crOnly = two;
        std::replace(crOnly.begin(), crOnly.end(), '\n', '\r');
        std::string crlf;
        for (const char c : two) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        for (const auto& [name, content] : {std::pair<std::string, std::string>{"bom.txt", "\xEF\xBB\xBF" + two},
                                            {"cr.txt", crOnly},
                                            {"bom-crlf.txt", "\xEF\xBB\xBF" + crlf}}) {
            const Corpus corpus = readPubTator(dir_.write(name, content));
            QVERIFY2(corpus.size() == 2, name.c_str());
            QVERIFY2(corpus.contains("1") && corpus.contains("2"), name.c_str());
            QCOMPARE(corpus.find("1")->title, std::string("Lung cancer."));
            QCOMPARE(corpus.find("1")->mentions.size(), std::size_t{1});
            QCOMPARE(corpus.find("2")->mentions.at(0).text, std::string("Gout"));
            QVERIFY2(corpus.diagnostics.empty(), name.c_str());
        }
    }
    void truncatedMentionLines_data() {
        QTest::addColumn<QString>("line");
        QTest::newRow("pmid and start only") << "1\t13";
        QTest::newRow("no type and ids") << "1\t13\t19\tBreast";
        QTest::newRow("no ids") << "1\t13\t26\tBreast cancer\tDisease";
    }
    void truncatedMentionLines() {
        QFETCH(QString, line);
        expectLine4(line.toStdString(), "too few columns");
    }
    void truncatedRelationLine() { expectLine4("1\tCID\tD008175", "too few columns"); }
    void tooManyColumns() { expectLine4("1\t13\t26\tBreast cancer\tDisease\tD001943\tx\ty", "too many columns (8)"); }

    void badOffsets_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("letters in start") << "1\t13x\t26\tBreast cancer\tDisease\tD001943"
                                          << "start offset \"13x\"";
        QTest::newRow("negative start") << "1\t-3\t26\tBreast cancer\tDisease\tD001943"
                                        << "start offset \"-3\"";
        QTest::newRow("word as end") << "1\t13\tabc\tBreast cancer\tDisease\tD001943"
                                     << "end offset \"abc\"";
        QTest::newRow("empty end") << "1\t13\t\tBreast cancer\tDisease\tD001943"
                                   << "end offset \"\"";
        QTest::newRow("space in start") << "1\t 13\t26\tBreast cancer\tDisease\tD001943"
                                        << "start offset \" 13\"";
        QTest::newRow("decimal") << "1\t13.0\t26\tBreast cancer\tDisease\tD001943"
                                 << "start offset";
        QTest::newRow("overflow") << "1\t13\t99999999999999999999999\tBreast cancer\tDisease\tD001943"
                                  << "too large";
    }
    void badOffsets() {
        QFETCH(QString, line);
        QFETCH(QString, fragment);
        expectLine4(line.toStdString(), fragment.toStdString());
    }

    void offsetsBeyondTheText() {
        expectLine4("1\t13\t90\tBreast cancer\tDisease\tD001943", "lie outside the text of document 1 (27 characters)");
    }
    void startNotBeforeEnd() {
        expectLine4("1\t26\t13\tBreast cancer\tDisease\tD001943", "start offset 26 is not before end offset 13");
        expectLine4("1\t13\t13\tBreast cancer\tDisease\tD001943", "start offset 13 is not before end offset 13");
    }
    void textMismatchStrictAndLenient() {
        const std::string line = "1\t13\t26\tBreast tumour\tDisease\tD001943";
        expectLine4(
            line, "mention text \"Breast tumour\" does not match the document text \"Breast cancer\" at offsets 13-26");
        PubTatorOptions lenient;
        lenient.lenient = true;
        const auto path = dir_.write("mismatch.txt", std::string(kGood) + line + "\n");
        const Corpus corpus = readPubTator(path, lenient);
        QCOMPARE(corpus.documents()[0].mentions.size(), std::size_t{2});
        QVERIFY(!corpus.documents()[0].mentions[1].offsetsValid);
        QCOMPARE(corpus.diagnostics.size(), std::size_t{1});
        QCOMPARE(corpus.diagnostics[0].line, std::size_t{4});
        QVERIFY(corpus.diagnostics[0].toString().find("mismatch.txt:4: mention text") != std::string::npos);
    }
    void lenientModeStillRejectsBrokenShapes() {
        PubTatorOptions lenient;
        lenient.lenient = true;
        expectLine4("1\t13x\t26\tBreast cancer\tDisease\tD001943", "start offset", lenient);
        expectLine4("2\t13\t26\tBreast cancer\tDisease\tD001943", "inside document 1", lenient);
    }

    void nonUtf8Bytes() {
        expectLine4("1\t13\t26\tBreast \xff\xfe cancer\tDisease\tD001943", "invalid UTF-8");
        // in a title too
        const auto path = dir_.write("latin1.txt", "1|t|Caf\xe9 disease\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "latin1.txt", 1, "invalid UTF-8");
    }

    void emptyFile() {
        const auto path = dir_.write("empty.txt", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "empty.txt", 0, "no documents");
        const auto blank = dir_.write("blank.txt", "\n\n\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(blank), "blank.txt", 0, "no documents");
    }
    void emptyFileAmongSeveral() {
        const auto good = dir_.write("good.txt", kGood);
        const auto empty = dir_.write("empty2.txt", "");
        const std::vector<std::filesystem::path> paths{good, empty};
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(paths), "empty2.txt", 0, "no documents");
    }
    void missingFile() {
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(dir_.path("absent.txt")), "absent.txt", 0, "no such file");
    }

    void hugeLine() {
        PubTatorOptions options;
        options.maxLineBytes = 1000;
        expectLine4("1\t13\t26\t" + std::string(5000, 'x') + "\tDisease\tD001943", "line longer than 1000 bytes",
                    options);
        // a huge line within the limit is read, and its mismatch message stays short
        const auto path = dir_.write(
            "long.txt", std::string(kGood) + "1\t13\t26\t" + std::string(100000, 'x') + "\tDisease\tD001943\n");
        const auto check = test::checkParseError([&] { readPubTator(path); }, "long.txt", 4, "(100000 bytes)");
        QVERIFY2(check.ok(), check.problem.c_str());
        QVERIFY(check.message.size() < 400);
    }

    void mentionForAnotherPmid() {
        expectLine4("2\t13\t26\tBreast cancer\tDisease\tD001943",
                    "annotation line for PMID 2 inside document 1 (title at line 1)");
    }
    void relationForAnotherPmid() { expectLine4("2\tCID\tD008175\tD001943", "inside document 1"); }
    void mentionBeforeAnyTitle() {
        const auto path = dir_.write("no_title.txt", "1\t0\t4\tLung\tDisease\tD008175\n1|t|Lung cancer.\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "no_title.txt", 1, "before any title line");
    }
    void mentionAfterTheBlankLine() {
        const auto path =
            dir_.write("after_blank.txt", std::string(kGood) + "\n1\t13\t26\tBreast cancer\tDisease\tD001943\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "after_blank.txt", 5,
                                     "outside a document: the blank line at line 4 ended document 1");
    }

    void abstractWithoutTitle() {
        const auto path = dir_.write("no_t.txt", "1|a|Breast cancer.\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "no_t.txt", 1, "without a title line");
        const auto later = dir_.write("no_t2.txt", std::string(kGood) + "\n2|a|Other.\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(later), "no_t2.txt", 5,
                                     "abstract line (|a|) for PMID 2 without a title");
    }
    void abstractOfAnotherDocument() { expectLine4("2|a|Other.", "abstract line for PMID 2 inside document 1"); }
    void secondAbstract() { expectLine4("1|a|Again.", "second abstract line for PMID 1 (first at line 2)"); }
    void abstractAfterAnnotations() {
        const auto path = dir_.write("late_a.txt", "1|t|Lung cancer.\n1\t0\t4\tLung\tDisease\tD008175\n1|a|Late.\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "late_a.txt", 3, "after its annotation lines");
    }

    void garbageLines_data() {
        QTest::addColumn<QString>("line");
        QTest::newRow("prose") << "hello world";
        QTest::newRow("unknown section") << "1|x|something";
        QTest::newRow("pipe only") << "1|";
        QTest::newRow("html") << "<html><body>";
    }
    void garbageLines() {
        QFETCH(QString, line);
        expectLine4(line.toStdString(), "unrecognised line");
    }
    void malformedPmids() {
        expectLine4("1 2|t|Title", "malformed PMID \"1 2\"");
        expectLine4("|t|Title", "malformed PMID \"\"");
        expectLine4("\t13\t26\tBreast cancer\tDisease\tD001943", "malformed PMID \"\"");
    }

    void brokenIdColumns_data() {
        QTest::addColumn<QString>("ids");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("mixed separators") << "D001943|D010051+D008175"
                                          << "mixes '|' and '+'";
        QTest::newRow("empty part") << "D001943||D010051"
                                    << "empty identifier";
        QTest::newRow("comma list") << "D001943,D010051"
                                    << "contains ','";
        QTest::newRow("semicolon list") << "D001943;D010051"
                                        << "contains ';'";
        QTest::newRow("space inside") << "D0019 43"
                                      << "contains a space";
    }
    void brokenIdColumns() {
        QFETCH(QString, ids);
        QFETCH(QString, fragment);
        expectLine4("1\t13\t26\tBreast cancer\tDisease\t" + ids.toStdString(), "broken id column");
        expectLine4("1\t13\t26\tBreast cancer\tDisease\t" + ids.toStdString(), fragment.toStdString());
    }
    void emptyTypeColumn() { expectLine4("1\t13\t26\tBreast cancer\t\tD001943", "empty type column"); }
    void brokenRelations() {
        expectLine4("1\tCID\tD008175\t", "empty argument 2");
        expectLine4("1\tC I D\tD008175\tD001943", "malformed relation type");
        expectLine4("1\tCID\tD008175\tD00 1943", "contains a space");
    }

    void truncatedGzip() {
        std::string content;
        for (int i = 0; i < 3000; ++i) {
            const auto pmid = std::to_string(i + 1);
            content += pmid + "|t|Lung cancer.\n" + pmid + "|a|Breast cancer.\n\n";
        }
        const auto path = dir_.path("cut.txt.gz");
        test::writeGzip(path, content);
        auto bytes = test::readFile(path);
        bytes.resize(bytes.size() / 2);
        test::writeFile(path, bytes);
        try {
            readPubTator(path);
            QFAIL("expected ParseError");
        } catch (const ParseError& e) {
            QVERIFY(e.line() >= 1);  // the line at which the damage was noticed
            QVERIFY2(std::string(e.what()).find("cut.txt.gz:") != std::string::npos, e.what());
        }
    }

    void errorAfterManyGoodDocumentsNamesTheRightLine() {
        std::string content;
        for (int i = 0; i < 500; ++i) {
            const auto pmid = std::to_string(i + 1);
            content += pmid + "|t|Lung cancer.\n" + pmid + "|a|Breast cancer.\n" + pmid +
                       "\t0\t11\tLung cancer\tDisease\tD008175\n\n";
        }
        content +=
            "501|t|Lung cancer.\n501\t0\t11\tLung cancer\tDisease\tD008175\n501\t0\t4\tLunge\tDisease\tD008175\n";
        const auto path = dir_.write("late_error.txt", content);
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "late_error.txt", 2003, "\"Lunge\" does not match");
    }
};

QTEST_APPLESS_MAIN(TestPubTatorMalformed)
#include "test_pubtator_malformed.moc"
