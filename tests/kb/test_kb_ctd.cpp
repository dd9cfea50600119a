// CTD TSV loader (diseases and chemicals) on fixtures in CTD's download format.
#include <string>
#include <vector>

#include "fixtures.h"
#include "gzip_fixture.h"
#include "kb/ctd_loader.h"
#include "kb_test_support.h"

using namespace linkscope;
using namespace linkscope::kb;
using test::Strings;
using test::toStrings;

namespace {

const std::string kPreamble =
    "# The Comparative Toxicogenomics Database (CTD) - http://ctdbase.org/\n"
    "#   Copyright 2012-2017 MDI Biological Laboratory & NC State University. All rights reserved.\n"
    "# \n"
    "# Report created: Tue Jun 06 11:31:46 EDT 2017\n"
    "#\n";
const std::string kDiseaseHeader =
    "# Fields:\n"
    "# "
    "DiseaseName\tDiseaseID\tAltDiseaseIDs\tDefinition\tParentIDs\tTreeNumbers\tParentTreeNumbers\tSynonyms\tSlimMappin"
    "gs\n"
    "#\n";
const std::string kDiseaseRows =
    "Cardiomyopathy, Dilated\tMESH:D002311\tDO:DOID:12930|OMIM:115200|OMIM:613424\tA disease.\tMESH:D009202\t"
    "C14.280.238.070\tC14.280.238\tCardiomyopathies, Congestive|Cardiomyopathies, Dilated\tCardiovascular disease\n"
    "CARDIOMYOPATHY, DILATED, 3B\tOMIM:302045\tDO:DOID:0110461\t\tMESH:D002311\t\t\t\tCardiovascular disease\n"
    "Cirrhosis, Familial\tMESH:C566123\tOMIM:215600\t\tMESH:D008103\t\t\tFamilial cirrhosis\t"
    "Digestive system disease|Genetic disease (inborn)\n";
const std::string kChemicalHeader =
    "# Fields:\n"
    "# ChemicalName\tChemicalID\tCasRN\tDefinition\tParentIDs\tTreeNumbers\tParentTreeNumbers\tSynonyms\n"
    "#\n";
const std::string kChemicalRows =
    "Hydroxocobalamin\tMESH:D006878\t13422-51-0\tA vitamin.\tMESH:D014805\tD03.633\tD03\tAquacobalamin|Vitamin B 12a\n"
    "10,10-bis(4-pyridinylmethyl)-9(10H)-anthracenone\tMESH:C112297\t\t\tMESH:D000880\t\t\t\n";
}  // namespace

class TestKbCtd : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void readsDiseases() {
        const auto result = loadCtd(dir_.write("CTD_diseases.tsv", kPreamble + kDiseaseHeader + kDiseaseRows));
        QVERIFY(result.diagnostics.empty());
        QVERIFY(result.kind == CtdKind::Diseases);
        QCOMPARE(result.linesRead, std::size_t{3});
        const KnowledgeBase& kb = result.kb;
        QCOMPARE(kb.entityCount(), std::size_t{3});

        const auto dcm = kb.findEntity("OMIM:613424").value();
        QCOMPARE(kb.primaryId(dcm), std::string_view("MESH:D002311"));
        QCOMPARE(toStrings(kb.names(dcm)),
                 (Strings{"Cardiomyopathy, Dilated", "Cardiomyopathies, Congestive", "Cardiomyopathies, Dilated"}));
        QCOMPARE(toStrings(kb.alternativeIds(dcm)), (Strings{"DO:DOID:12930", "OMIM:115200", "OMIM:613424"}));
        QCOMPARE(kb.semanticTypes(dcm).size(), std::size_t{1});
        QCOMPARE(kb.semanticTypes(dcm)[0].name, std::string_view("Cardiovascular disease"));
        QCOMPARE(kb.semanticTypes(dcm)[0].id, std::string_view(""));

        const auto omimOnly = kb.findEntity("OMIM:302045").value();
        QCOMPARE(toStrings(kb.names(omimOnly)), (Strings{"CARDIOMYOPATHY, DILATED, 3B"}));
        const auto cirrhosis = kb.findEntity("C566123").value();
        QCOMPARE(kb.semanticTypes(cirrhosis).size(), std::size_t{2});
        QCOMPARE(kb.statistics().semanticTypes, std::size_t{3});
    }

    void readsChemicals() {
        test::writeGzip(dir_.path("CTD_chemicals.tsv.gz"), kPreamble + kChemicalHeader + kChemicalRows);
        const auto result = loadCtd(dir_.path("CTD_chemicals.tsv.gz"));
        QVERIFY(result.diagnostics.empty());
        QVERIFY(result.kind == CtdKind::Chemicals);
        const KnowledgeBase& kb = result.kb;
        QCOMPARE(kb.entityCount(), std::size_t{2});
        const auto b12a = kb.findEntity("D006878").value();
        QCOMPARE(toStrings(kb.names(b12a)), (Strings{"Hydroxocobalamin", "Aquacobalamin", "Vitamin B 12a"}));
        QCOMPARE(kb.findEntity("CAS:13422-51-0").value(), b12a);
        QVERIFY(kb.semanticTypes(b12a).empty());
        const auto other = kb.findEntity("MESH:C112297").value();
        QVERIFY(kb.alternativeIds(other).empty());
        QCOMPARE(kb.names(other).size(), std::size_t{1});
    }

    void headerColumnsMayComeInAnyOrder() {
        const std::string content =
            "# Fields:\n# DiseaseID\tDiseaseName\tSynonyms\n#\n"
            "MESH:D000001\tFirst\tOne|Uno\n";
        const auto result = loadCtd(dir_.write("reordered.tsv", content));
        QCOMPARE(result.kb.primaryId(0), std::string_view("MESH:D000001"));
        QCOMPARE(toStrings(result.kb.names(0)), (Strings{"First", "One", "Uno"}));
    }

    void headerlessFileIsRefusedUnlessTheKindIsGiven() {
        const auto path = dir_.write("headerless.tsv", kDiseaseRows);
        LINKSCOPE_EXPECT_PARSE_ERROR(loadCtd(path), path, 1, "no \"# Fields:\" header");
        CtdOptions options;
        options.kind = CtdKind::Diseases;
        const auto result = loadCtd(path, options);
        QCOMPARE(result.kb.entityCount(), std::size_t{3});
        QVERIFY(result.kind == CtdKind::Diseases);
        QCOMPARE(result.diagnostics.size(), std::size_t{1});
        QVERIFY(result.diagnostics[0].message.find("standard diseases columns") != std::string::npos);
        // The standard chemical columns are 8: a disease row does not fit them.
        options.kind = CtdKind::Chemicals;
        LINKSCOPE_EXPECT_PARSE_ERROR(loadCtd(path, options), path, 1, "expected 8 tab-separated columns, found 9");
    }

    void givenKindMustMatchTheHeader() {
        const auto path = dir_.write("diseases.tsv", kDiseaseHeader + kDiseaseRows);
        CtdOptions options;
        options.kind = CtdKind::Chemicals;
        LINKSCOPE_EXPECT_PARSE_ERROR(loadCtd(path, options), path, 2, "expected a CTD chemicals file");
    }

    void malformedInputNamesFileAndLine_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("fragment");
        const QByteArray header = QByteArray::fromStdString(kDiseaseHeader);  // 3 lines
        QTest::newRow("truncated row") << header + "Name\tMESH:D000001\t\t\n"
                                       << 4 << "expected 9 tab-separated columns, found 4";
        QTest::newRow("extra column") << header + "N\tMESH:D000001\t\t\t\t\t\t\t\textra\n" << 4 << "found 10";
        QTest::newRow("empty id") << header + "Name\t\t\t\t\t\t\t\t\n" << 4 << "empty identifier";
        QTest::newRow("empty name") << header + "\tMESH:D000001\t\t\t\t\t\t\t\n" << 4 << "empty name";
        QTest::newRow("non-UTF-8") << header + "Caf\xe9\tMESH:D000001\t\t\t\t\t\t\t\n" << 4 << "invalid UTF-8";
        QTest::newRow("unknown columns") << QByteArray("# Fields:\n# Name\tId\n") << 2 << "neither";
        QTest::newRow("mixed columns") << QByteArray("# Fields:\n# ChemicalName\tDiseaseID\n") << 2 << "mixes";
        QTest::newRow("no column line") << QByteArray("# Fields:\nName\tMESH:D000001\n") << 2 << "naming the columns";
        QTest::newRow("fields at end") << QByteArray("# a comment\n# Fields:\n") << 2 << "without the column names";
    }
    void malformedInputNamesFileAndLine() {
        QFETCH(QByteArray, content);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        const auto path =
            dir_.write("bad.tsv", std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        LINKSCOPE_EXPECT_PARSE_ERROR(loadCtd(path), path, static_cast<std::size_t>(line), fragment.toStdString());
    }

    void lenientModeSkipsBadRows() {
        const auto path = dir_.write("mixed.tsv", kDiseaseHeader + "Short\tMESH:D000009\n" + kDiseaseRows);
        CtdOptions options;
        options.lenient = true;
        const auto result = loadCtd(path, options);
        QCOMPARE(result.kb.entityCount(), std::size_t{3});
        QCOMPARE(result.diagnostics.size(), std::size_t{1});
        QCOMPARE(result.diagnostics[0].line, std::size_t{4});
        QVERIFY(!result.kb.findEntity("D000009").has_value());
    }

    void strayBarsAndRepeatedIdsAreReported() {
        const auto path = dir_.write("quirks.tsv", kDiseaseHeader +
                                                       "First\tMESH:D000001\t\t\t\t\t\tOne||Two|\t\n"
                                                       "Again\tMESH:D000001\t\t\t\t\t\tThree\t\n");
        const auto result = loadCtd(path);
        QCOMPARE(result.kb.entityCount(), std::size_t{1});
        QCOMPARE(toStrings(result.kb.names(0)), (Strings{"First", "One", "Two", "Again", "Three"}));
        QCOMPARE(result.diagnostics.size(), std::size_t{2});
        QCOMPARE(result.diagnostics[0].line, std::size_t{4});
        QVERIFY(result.diagnostics[0].message.find("2 empty synonym") != std::string::npos);
        QCOMPARE(result.diagnostics[1].line, std::size_t{5});
        QVERIFY(result.diagnostics[1].message.find("earlier row") != std::string::npos);
    }

    void emptyAndCommentOnlyFilesLoadNothing() {
        for (const auto& [name, content] :
             {std::pair{"empty.tsv", std::string()}, std::pair{"comments.tsv", kPreamble}}) {
            const auto result = loadCtd(dir_.write(name, content));
            QCOMPARE(result.kb.entityCount(), std::size_t{0});
            QCOMPARE(result.diagnostics.size(), std::size_t{1});
            QVERIFY(result.diagnostics[0].message.find("no CTD rows") != std::string::npos);
        }
    }

    void hugeLineIsAnError() {
        const auto path = dir_.write("huge.tsv", kDiseaseHeader + "N\tMESH:D000001\t" + std::string(5000, 'x') + "\n");
        CtdOptions options;
        options.maxLineBytes = 1024;
        LINKSCOPE_EXPECT_PARSE_ERROR(loadCtd(path, options), path, 4, "longer than 1024 bytes");
    }
};

QTEST_APPLESS_MAIN(TestKbCtd)
#include "test_kb_ctd.moc"
