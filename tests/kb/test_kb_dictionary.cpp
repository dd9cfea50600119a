// MEDIC / BioSyn dictionary loader on fixtures in the real formats.
#include <algorithm>
#include <string>
#include <vector>

#include "fixtures.h"
#include "gzip_fixture.h"
#include "kb/dictionary_loader.h"
#include "kb_test_support.h"

using namespace linkscope;
using namespace linkscope::kb;
using test::Strings;
using test::toStrings;

namespace {

// Lines as in medic_06Jul2012.txt, including its quirks: OMIM before MeSH, an OMIM-only
// concept whose number is also another concept's alternative id, two MeSH ids on one line.
constexpr std::string_view kMedic =
    "C565588||Epidermolysis Bullosa With Diaphragmatic Hernia\n"
    "C567755|613097||Tooth Agenesis, Selective, 6|STHAG6\n"
    "605027|D008228||Lymphoma, Non-Hodgkin|Diffuse Lymphoma|Diffuse Lymphomas\n"
    "260350||PANCREATIC CANCER PANCREATIC CARCINOMA|PANCREATIC ACINAR CARCINOMA\n"
    "D010190|260350||Pancreatic Neoplasms|Cancer of Pancreas|PANCREATIC ACINAR CARCINOMA\n"
    "115200|D002311|C580047||Cardiomyopathy, Dilated|Cardiomyopathies, Dilated\n";

// Lines as in BioSyn's train/dev/test_dictionary.txt: one name per line, ids repeated, and
// the gold ids of training mentions (several concepts, '+' combinations, other orders).
constexpr std::string_view kBiosyn =
    "C567755|613097||tooth agenesis selective 6\n"
    "C567755|613097||sthag6\n"
    "D001943||breast neoplasms\n"
    "605027|D008228||lymphoma non hodgkin\n"
    "D008228|605027||nhl\n"
    "D001943|D010051|D001943+D010051||breast and ovarian cancer\n"
    "D015862+D058499||combined deficiency\n"
    "C567755|613097||tooth agenesis selective 6\n"
    "D001943||breast cancer\n";
}  // namespace

class TestKbDictionary : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void readsMedicLines() {
        const auto result = loadDictionary(dir_.write("medic.txt", kMedic));
        const KnowledgeBase& kb = result.kb;
        QVERIFY(result.diagnostics.empty());
        QCOMPARE(result.linesRead, std::size_t{6});
        QCOMPARE(kb.entityCount(), std::size_t{6});

        const auto tooth = kb.findEntity("OMIM:613097").value();
        QCOMPARE(kb.primaryId(tooth), std::string_view("MESH:C567755"));
        QCOMPARE(kb.preferredName(tooth), std::string_view("Tooth Agenesis, Selective, 6"));
        QCOMPARE(toStrings(kb.synonyms(tooth)), (Strings{"STHAG6"}));
        QCOMPARE(toStrings(kb.alternativeIds(tooth)), (Strings{"OMIM:613097"}));

        // OMIM written first: the MeSH id is still the primary one.
        const auto lymphoma = kb.findEntity("D008228").value();
        QCOMPARE(kb.primaryId(lymphoma), std::string_view("MESH:D008228"));
        QCOMPARE(kb.findEntity("OMIM:605027").value(), lymphoma);
        QCOMPARE(kb.names(lymphoma).size(), std::size_t{3});

        // OMIM:260350 is an entity of its own and an alternative id of D010190.
        const auto holders = kb.findById("OMIM:260350");
        QCOMPARE(holders.size(), std::size_t{2});
        QCOMPARE(kb.primaryId(holders[0]), std::string_view("OMIM:260350"));
        QCOMPARE(kb.primaryId(holders[1]), std::string_view("MESH:D010190"));

        // Two MeSH ids: the first is primary, the second an alternative of the same concept.
        const auto dcm = kb.findEntity("MESH:C580047").value();
        QCOMPARE(kb.primaryId(dcm), std::string_view("MESH:D002311"));
        QCOMPARE(toStrings(kb.alternativeIds(dcm)), (Strings{"OMIM:115200", "MESH:C580047"}));

        const auto stats = kb.statistics();
        QCOMPARE(stats.namePairs, std::size_t{13});
        QCOMPARE(stats.alternativeIds, std::size_t{5});
        QCOMPARE(stats.namesOfSeveralEntities, std::size_t{1});  // PANCREATIC ACINAR CARCINOMA
        QCOMPARE(stats.idsOfSeveralEntities, std::size_t{1});    // OMIM:260350
    }

    void mergesBiosynLinesOfTheSameIds() {
        const auto result = loadDictionary(dir_.write("biosyn.txt", kBiosyn));
        const KnowledgeBase& kb = result.kb;
        QVERIFY(result.diagnostics.empty());
        QCOMPARE(result.linesRead, std::size_t{9});
        QCOMPARE(kb.entityCount(), std::size_t{5});

        const auto tooth = kb.findEntity("MESH:C567755").value();
        QCOMPARE(toStrings(kb.names(tooth)), (Strings{"tooth agenesis selective 6", "sthag6"}));  // repeat stored once
        const auto lymphoma = kb.findEntity("MESH:D008228").value();  // both id orders merged
        QCOMPARE(toStrings(kb.names(lymphoma)), (Strings{"lymphoma non hodgkin", "nhl"}));
        QCOMPARE(kb.findById("D008228").size(), std::size_t{1});

        // A composite mention's id set is an entity of its own; the D001943 concept is found
        // first by its id, the composite one after it.
        const auto breast = kb.findById("D001943");
        QCOMPARE(breast.size(), std::size_t{2});
        QCOMPARE(toStrings(kb.names(breast[0])), (Strings{"breast neoplasms", "breast cancer"}));
        QCOMPARE(kb.preferredName(breast[1]), std::string_view("breast and ovarian cancer"));
        QCOMPARE(toStrings(kb.alternativeIds(breast[1])), (Strings{"MESH:D010051", "MESH:D001943+MESH:D010051"}));

        // A '+' combination is one identifier.
        const auto combined = kb.findEntity("MESH:D015862+MESH:D058499").value();
        QCOMPARE(kb.preferredName(combined), std::string_view("combined deficiency"));
    }

    void readsGzipTransparently() {
        test::writeGzip(dir_.path("medic.txt.gz"), kMedic);
        const auto result = loadDictionary(dir_.path("medic.txt.gz"));
        QCOMPARE(result.kb.entityCount(), std::size_t{6});
    }

    void emptyFileGivesEmptyKb() {
        const auto result = loadDictionary(dir_.write("empty.txt", ""));
        QCOMPARE(result.kb.entityCount(), std::size_t{0});
        QCOMPARE(result.linesRead, std::size_t{0});
    }

    // Saved by a Windows editor (byte-order mark, CRLF) or a classic Mac one (CR only): the same
    // entities, and the first id without the mark, so its mentions are still in the KB.
    void byteOrderMarkAndLineEndsDoNotChangeTheEntities() {
        const std::string withBom = "\xEF\xBB\xBF" + std::string(kMedic);
        const auto bom = loadDictionary(dir_.write("bom.txt", withBom));
        QCOMPARE(bom.kb.entityCount(), std::size_t{6});
        const auto plain = loadDictionary(dir_.write("plain.txt", kMedic));
        const auto firstId = std::string(plain.kb.primaryId(0));
        QVERIFY2(bom.kb.findEntity(firstId).has_value(), firstId.c_str());
        QVERIFY(!bom.kb.findEntity("\xEF\xBB\xBF" + firstId).has_value());
        std::string crOnly(kMedic);
        std::replace(crOnly.begin(), crOnly.end(), '\n', '\r');
        const auto cr = loadDictionary(dir_.write("cr.txt", crOnly));
        QCOMPARE(cr.kb.entityCount(), std::size_t{6});
        QCOMPARE(cr.linesRead, std::size_t{6});
    }

    void blankLinesAreSkipped() {
        const auto result = loadDictionary(dir_.write("blank.txt", "\nD000001||a\n   \r\nD000002||b\n"));
        QCOMPARE(result.kb.entityCount(), std::size_t{2});
        QCOMPARE(result.linesRead, std::size_t{2});
    }

    void malformedLinesNameFileAndLine_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("missing ||") << QByteArray("D000001||a\nD000002|b\n") << 2 << "missing \"||\"";
        QTest::newRow("truncated after ids") << QByteArray("D000001||a\nD000002|\n") << 2 << "missing \"||\"";
        QTest::newRow("truncated after ||") << QByteArray("D000001||a\nD000002||\n") << 2 << "no name";
        QTest::newRow("only bars as names") << QByteArray("D000002|| | |\n") << 1 << "no name";
        QTest::newRow("empty id") << QByteArray("D000001||a\n||b\n") << 2 << "empty identifier";
        QTest::newRow("empty id part") << QByteArray("|D000001||b\n") << 1 << "empty identifier";
        QTest::newRow("empty combination part") << QByteArray("D000001+||b\n") << 1 << "empty identifier";
        QTest::newRow("cui-less id") << QByteArray("D000001||a\n-1||b\n") << 2 << "CUI-less";
        QTest::newRow("non-UTF-8") << QByteArray("D000001||a\nD000002||caf\xe9\n") << 2 << "invalid UTF-8";
    }
    void malformedLinesNameFileAndLine() {
        QFETCH(QByteArray, content);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        const auto path =
            dir_.write("bad.txt", std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        LINKSCOPE_EXPECT_PARSE_ERROR(loadDictionary(path), path, static_cast<std::size_t>(line),
                                     fragment.toStdString());
    }

    void hugeLineIsAnErrorNotACrash() {
        const auto path = dir_.write("huge.txt", "D000001||a\nD000002||" + std::string(3000, 'x') + "\n");
        DictionaryOptions options;
        options.maxLineBytes = 1000;
        LINKSCOPE_EXPECT_PARSE_ERROR(loadDictionary(path, options), path, 2, "longer than 1000 bytes");
        options.lenient = true;  // too long is fatal even when lenient: the file is broken
        QVERIFY_THROWS_EXCEPTION(ParseError, loadDictionary(path, options));
    }

    void lenientModeSkipsBadLinesWithDiagnostics() {
        const auto path = dir_.write("mixed.txt",
                                     "D000001||a\n"
                                     "no separator here\n"
                                     "D000002||caf\xe9\n"
                                     "-1||cuiless\n"
                                     "D000003||b\n");
        DictionaryOptions options;
        options.lenient = true;
        const auto result = loadDictionary(path, options);
        QCOMPARE(result.kb.entityCount(), std::size_t{2});
        QCOMPARE(result.diagnostics.size(), std::size_t{3});
        QCOMPARE(result.diagnostics[0].line, std::size_t{2});
        QCOMPARE(result.diagnostics[1].line, std::size_t{3});
        QCOMPARE(result.diagnostics[2].line, std::size_t{4});
        QCOMPARE(result.diagnostics[0].file, path.string());
        QVERIFY(result.diagnostics[1].message.find("UTF-8") != std::string::npos);
        QVERIFY(result.diagnostics[0].toString().starts_with(path.string() + ":2:"));
    }

    void emptyNamesAreReportedNotSilentlyDropped() {
        const auto path = dir_.write("gaps.txt", "D000001||a||b|\n");
        const auto result = loadDictionary(path);  // strict mode: a note, not an error
        QCOMPARE(toStrings(result.kb.names(0)), (Strings{"a", "b"}));
        QCOMPARE(result.diagnostics.size(), std::size_t{1});
        QCOMPARE(result.diagnostics[0].line, std::size_t{1});
        QVERIFY(result.diagnostics[0].message.find("2 empty name") != std::string::npos);
    }

    void missingFileIsAParseError() { QVERIFY_THROWS_EXCEPTION(ParseError, loadDictionary(dir_.path("absent.txt"))); }
};

QTEST_APPLESS_MAIN(TestKbDictionary)
#include "test_kb_dictionary.moc"
