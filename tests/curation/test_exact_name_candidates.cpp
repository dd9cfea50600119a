// The candidates shown before the ranker is built (curation/exact_name_candidates.h):
// the entities a mention's text names, as written or in its case variants; homonyms flagged;
// each entity once, at most k; nothing for a text no name spells.
#include <QTest>

#include <string>
#include <vector>

#include "curation/exact_name_candidates.h"
#include "kb/kb_builder.h"
#include "kb/knowledge_base.h"

using namespace linkscope;
using namespace linkscope::curation;

namespace {

kb::KnowledgeBase knowledgeBase() {
    kb::KnowledgeBaseBuilder builder;
    const auto add = [&builder](std::string_view id, std::initializer_list<std::string_view> names) {
        const kb::EntityIndex e = builder.entity(id);
        for (const std::string_view name : names) builder.addName(e, name);
    };
    add("MESH:D003924", {"Diabetes Mellitus, Type 2", "type 2 diabetes"});
    add("MESH:D006816", {"Huntington Disease", "HD"});
    add("MESH:D006821", {"Hearing Disorders", "HD"});  // "HD" names two entities
    add("MESH:D001943", {"Breast Neoplasms"});
    add("MESH:D000001", {"Sjögren syndrome"});
    return builder.build();
}

std::vector<std::string> entitiesOf(const std::vector<CandidateRow>& rows) {
    std::vector<std::string> ids;
    for (const auto& row : rows) ids.push_back(row.entity);
    return ids;
}

}  // namespace

class TestExactNameCandidates : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void variantsCoverTheCommonCases() {
        const auto variants = nameCaseVariants("diabetes mellitus, type 2");
        const std::vector<std::string> expected{"diabetes mellitus, type 2", "Diabetes mellitus, type 2",
                                                "Diabetes Mellitus, Type 2", "DIABETES MELLITUS, TYPE 2"};
        QCOMPARE(variants, expected);  // the lower-case form is the text itself: listed once
        // Letters after a non-ASCII one stay as they are (no word starts inside "Sjögren").
        QCOMPARE(nameCaseVariants("sjögren syndrome")[2], std::string("Sjögren Syndrome"));
        QCOMPARE(nameCaseVariants("HD").front(), std::string("HD"));
        QCOMPARE(nameCaseVariants(""), std::vector<std::string>{""});
    }

    void findsTheEntitiesANameSpells() {
        const kb::KnowledgeBase kb = knowledgeBase();
        // MeSH's heading from a lower-case mention, through the title-case variant.
        auto rows = exactNameCandidates(kb, "diabetes mellitus, type 2", 10);
        QCOMPARE(entitiesOf(rows), std::vector<std::string>{"MESH:D003924"});
        QCOMPARE(rows[0].matchedName, std::string("Diabetes Mellitus, Type 2"));
        QCOMPARE(rows[0].score, 1.0);
        QVERIFY(!rows[0].sharedName);
        // As written first; a homonym lists both its entities, flagged.
        rows = exactNameCandidates(kb, "HD", 10);
        QCOMPARE(entitiesOf(rows), (std::vector<std::string>{"MESH:D006816", "MESH:D006821"}));
        QVERIFY(rows[0].sharedName && rows[1].sharedName);
        // An entity found by two variants is listed once.
        rows = exactNameCandidates(kb, "Type 2 Diabetes", 10);
        QCOMPARE(entitiesOf(rows), std::vector<std::string>{"MESH:D003924"});
        QCOMPARE(rows[0].matchedName, std::string("type 2 diabetes"));
        // UTF-8 names are found; at most k rows.
        QCOMPARE(entitiesOf(exactNameCandidates(kb, "sjögren syndrome", 10)), std::vector<std::string>{"MESH:D000001"});
        QCOMPARE(exactNameCandidates(kb, "HD", 1).size(), std::size_t{1});
    }

    void nothingForTextsNoNameSpells() {
        const kb::KnowledgeBase kb = knowledgeBase();
        QVERIFY(exactNameCandidates(kb, "breast cancer", 10).empty());  // a near name is no exact one
        QVERIFY(exactNameCandidates(kb, "", 10).empty());
        QVERIFY(exactNameCandidates(kb, "HD", 0).empty());
    }
};

QTEST_GUILESS_MAIN(TestExactNameCandidates)
#include "test_exact_name_candidates.moc"
