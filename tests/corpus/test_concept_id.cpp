// Concept id canonicalisation (core/corpus/concept_id.h): the spellings the corpora and
// vocabularies use must meet in one canonical form.
#include <QtTest/QtTest>

#include "corpus/concept_id.h"
#include "corpus/id_list.h"
#include "util/error.h"

using namespace linkscope;

class TestConceptId : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void canonicalSpelling_data() {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<QString>("canonical");  // empty: nullopt
        QTest::newRow("mesh descriptor") << "D012878"
                                         << "MESH:D012878";
        QTest::newRow("mesh supplementary") << "C535700"
                                            << "MESH:C535700";
        QTest::newRow("mesh 9 digits") << "D000081029"
                                       << "MESH:D000081029";
        QTest::newRow("supplementary 9 digits") << "C000603933"
                                                << "MESH:C000603933";
        QTest::newRow("umls cui") << "C0011849"
                                  << "UMLS:C0011849";
        QTest::newRow("prefixed mesh") << "MESH:D012878"
                                       << "MESH:D012878";
        QTest::newRow("mixed-case prefix") << "MeSH:D012878"
                                           << "MESH:D012878";
        QTest::newRow("omim") << "OMIM:217000"
                              << "OMIM:217000";
        QTest::newRow("lower-case omim") << "omim:217000"
                                         << "OMIM:217000";
        QTest::newRow("umls prefixed") << "UMLS:C0011849"
                                       << "UMLS:C0011849";
        QTest::newRow("leading space (NCBI train)") << " D007153"
                                                    << "MESH:D007153";
        QTest::newRow("trailing space (NCBI)") << "OMIM:106210 "
                                               << "OMIM:106210";
        QTest::newRow("space after colon") << "OMIM: 106210"
                                           << "OMIM:106210";
        QTest::newRow("chebi") << "CHEBI:15377"
                               << "CHEBI:15377";
        QTest::newRow("unknown scheme kept") << "foo123"
                                             << "foo123";
        QTest::newRow("short D number is not MeSH") << "D1234"
                                                    << "D1234";
        QTest::newRow("cui-less") << "-1"
                                  << "";
        QTest::newRow("cui-less with spaces") << " -1 "
                                              << "";
        QTest::newRow("empty") << ""
                               << "";
        QTest::newRow("blank") << "   "
                               << "";
    }
    void canonicalSpelling() {
        QFETCH(QString, raw);
        QFETCH(QString, canonical);
        const auto result = canonicalConceptId(raw.toStdString());
        if (canonical.isEmpty()) {
            QVERIFY2(!result.has_value(), result ? result->c_str() : "");
        } else {
            QVERIFY(result.has_value());
            QCOMPARE(QString::fromStdString(*result), canonical);
        }
    }

    void shortForm() {
        QCOMPARE(shortConceptId("MESH:D012878"), std::string_view("D012878"));
        QCOMPARE(shortConceptId("OMIM:217000"), std::string_view("OMIM:217000"));
        QCOMPARE(shortConceptId("UMLS:C0011849"), std::string_view("UMLS:C0011849"));
        // the short form of a canonical MeSH id is canonicalised back to the same id
        QCOMPARE(*canonicalConceptId(shortConceptId("MESH:C535700")), std::string("MESH:C535700"));
    }

    void singleId() {
        const auto list = parseConceptIdList("D012878");
        QCOMPARE(list.ids, (std::vector<std::string>{"MESH:D012878"}));
        QCOMPARE(list.join, IdJoin::Single);
        QVERIFY(!list.cuiLess);
    }
    void alternativeComposite() {
        const auto list = parseConceptIdList("D001943|D010051");
        QCOMPARE(list.ids, (std::vector<std::string>{"MESH:D001943", "MESH:D010051"}));
        QCOMPARE(list.join, IdJoin::Alternative);
    }
    void conjunctionComposite() {
        const auto list = parseConceptIdList("OMIM:300322+OMIM:102600");
        QCOMPARE(list.ids, (std::vector<std::string>{"OMIM:300322", "OMIM:102600"}));
        QCOMPARE(list.join, IdJoin::Conjunction);
    }
    void mixedSchemesInComposite() {
        const auto list = parseConceptIdList("C535918|OMIM:115470");
        QCOMPARE(list.ids, (std::vector<std::string>{"MESH:C535918", "OMIM:115470"}));
    }
    void cuiLessColumn() {
        for (const char* column : {"-1", "", " -1"}) {
            const auto list = parseConceptIdList(column);
            QVERIFY2(list.cuiLess, column);
            QVERIFY(list.ids.empty());
        }
    }
    void cuiLessPartOfComposite() {
        // BC5CDR writes "D002544|-1" once: one part has a concept, the other has none.
        const auto list = parseConceptIdList("D002544|-1");
        QVERIFY(!list.cuiLess);
        QCOMPARE(list.ids, (std::vector<std::string>{"MESH:D002544", "-1"}));
        QCOMPARE(list.join, IdJoin::Alternative);
    }
    void spacesAroundColumnAndParts() {
        const auto list = parseConceptIdList(" D007153 ");
        QCOMPARE(list.ids, (std::vector<std::string>{"MESH:D007153"}));
        const auto parts = parseConceptIdList("D001943 | D010051");
        QCOMPARE(parts.ids, (std::vector<std::string>{"MESH:D001943", "MESH:D010051"}));
    }
    void brokenColumns_data() {
        QTest::addColumn<QString>("column");
        QTest::newRow("mixed separators") << "D1|D2+D3";
        QTest::newRow("empty middle part") << "D001943||D010051";
        QTest::newRow("empty first part") << "|D001943";
        QTest::newRow("empty last part") << "D001943+";
    }
    void brokenColumns() {
        QFETCH(QString, column);
        QVERIFY_THROWS_EXCEPTION(Error, parseConceptIdList(column.toStdString()));
    }

    // The one splitter of id lists: parts as written, empty ones kept (readers of ids drop them).
    void splitIdListKeepsEveryPart() {
        using Parts = std::vector<std::string_view>;
        QCOMPARE(splitIdList("D1"), (Parts{"D1"}));
        QCOMPARE(splitIdList("D1|D2"), (Parts{"D1", "D2"}));
        QCOMPARE(splitIdList(""), (Parts{""}));
        QCOMPARE(splitIdList("D1||D2|"), (Parts{"D1", "", "D2", ""}));
        QCOMPARE(splitIdList(" D1 | D2"), (Parts{" D1 ", " D2"}));
        QCOMPARE(splitIdList("D1+D2|D3", '+'), (Parts{"D1", "D2|D3"}));
    }
};

QTEST_APPLESS_MAIN(TestConceptId)
#include "test_concept_id.moc"
