// The two rules of when a link agrees with the gold ids (core/eval/gold_agreement.h): lenient for
// a linker's accuracy, exact for what a curator still has to look at.
#include <QtTest/QtTest>

#include <string>
#include <string_view>
#include <vector>

#include "corpus/concept_id.h"
#include "eval/gold_agreement.h"

using namespace linkscope;

class TestGoldAgreement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lenientTakesAnyGoldId() {
        const std::vector<std::string> gold{"D1", "D2"};
        QVERIFY(eval::linkAgreesLeniently("D1", gold));
        QVERIFY(eval::linkAgreesLeniently("D2|D1", gold));
        QVERIFY(!eval::linkAgreesLeniently("D1|D3", gold));
        QVERIFY(!eval::linkAgreesLeniently("D3", gold));
        QVERIFY(!eval::linkAgreesLeniently("", gold));
        QVERIFY(!eval::linkAgreesLeniently("D1|", gold));
        QVERIFY(!eval::linkAgreesLeniently("-1", gold));
        QVERIFY(eval::linkAgreesLeniently("-1", std::vector<std::string>{"-1"}));
    }

    void lenientOverParts() {
        const std::vector<std::string> gold{"D1", "D2"};
        QVERIFY(eval::partsAgreeLeniently(std::vector<std::string_view>{"D1", "D2"}, gold));
        QVERIFY(eval::partsAgreeLeniently(std::vector<std::string_view>{"D2"}, gold));
        QVERIFY(!eval::partsAgreeLeniently(std::vector<std::string_view>{}, gold));
        QVERIFY(!eval::partsAgreeLeniently(std::vector<std::string_view>{"D1", ""}, gold));
        QVERIFY(!eval::partsAgreeLeniently(std::vector<std::string_view>{"D1", "D3"}, gold));
    }

    // "A" on gold "A|B": right for the lenient rule, a disagreement for the exact one.
    void exactWantsEveryGoldId() {
        const ConceptIdList composite = parseConceptIdList("MESH:D1|MESH:D2");
        QVERIFY(eval::linkAgreesLeniently("MESH:D1", composite.ids));
        QVERIFY(!eval::linkAgreesExactly("MESH:D1", composite));
        QVERIFY(eval::linkAgreesExactly("MESH:D1|MESH:D2", composite));
        QVERIFY(eval::linkAgreesExactly("MESH:D2|MESH:D1", composite));
        QVERIFY(!eval::linkAgreesExactly("MESH:D1|MESH:D2|MESH:D3", composite));
        QVERIFY(!eval::linkAgreesExactly("", composite));

        const ConceptIdList single = parseConceptIdList("MESH:D1");
        QVERIFY(eval::linkAgreesExactly("MESH:D1", single));
        QVERIFY(eval::linkAgreesExactly("MESH:D1|", single));  // empty parts are ignored
        QVERIFY(!eval::linkAgreesExactly("MESH:D2", single));
    }

    void exactNilAgreesWithCuiLessGold() {
        const ConceptIdList cuiLess = parseConceptIdList("-1");
        QVERIFY(cuiLess.cuiLess);
        QVERIFY(eval::linkAgreesExactly("-1", cuiLess));
        QVERIFY(!eval::linkAgreesExactly("MESH:D1", cuiLess));
        QVERIFY(!eval::linkAgreesExactly("", cuiLess));
    }
};

QTEST_APPLESS_MAIN(TestGoldAgreement)
#include "test_gold_agreement.moc"
