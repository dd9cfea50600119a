// Merging candidate lists (Le & Nguyen's two TF-IDF settings) and reading a ranked list by concept.
#include "retrieval/candidate_merge.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

std::vector<std::uint32_t> entriesOf(const std::vector<Candidate>& candidates) {
    std::vector<std::uint32_t> entries;
    for (const auto& candidate : candidates) entries.push_back(candidate.entry);
    return entries;
}

}  // namespace

class TestCandidateMerge : public QObject {
    Q_OBJECT

    const std::vector<Candidate> chars_{{4, 0.9f}, {7, 0.8f}, {2, 0.7f}, {9, 0.6f}};
    const std::vector<Candidate> words_{{7, 0.95f}, {1, 0.5f}, {4, 0.4f}, {3, 0.3f}};

private Q_SLOTS:
    void interleaveKeepsFirstSeenWithoutDuplicates() {
        const std::vector<std::vector<Candidate>> lists{chars_, words_};
        const auto merged = mergeCandidates(lists, 10);
        // Rank 1: 4, 7; rank 2: (7 seen), 1; rank 3: 2, (4 seen); rank 4: 9, 3.
        QCOMPARE(entriesOf(merged), (std::vector<std::uint32_t>{4, 7, 1, 2, 9, 3}));
        QCOMPARE(merged[1].score, 0.95f);  // 7 was first seen at rank 1 of the second list
        QCOMPARE(merged[0].score, 0.9f);
        QCOMPARE(entriesOf(mergeCandidates(lists, 3)), (std::vector<std::uint32_t>{4, 7, 1}));
    }
    void concatenateTakesTheFirstListFirst() {
        const std::vector<std::vector<Candidate>> lists{chars_, words_};
        QCOMPARE(entriesOf(mergeCandidates(lists, 10, MergeOrder::Concatenate)),
                 (std::vector<std::uint32_t>{4, 7, 2, 9, 1, 3}));
        QCOMPARE(entriesOf(mergeCandidates(lists, 5, MergeOrder::Concatenate)),
                 (std::vector<std::uint32_t>{4, 7, 2, 9, 1}));
    }
    void edgeCases() {
        QVERIFY(mergeCandidates({}, 5).empty());
        const std::vector<std::vector<Candidate>> lists{{}, words_, {}};
        QCOMPARE(entriesOf(mergeCandidates(lists, 10)), (std::vector<std::uint32_t>{7, 1, 4, 3}));
        QVERIFY(mergeCandidates(lists, 0).empty());
        const std::vector<std::vector<Candidate>> repeated{{{5, 1.0f}, {5, 0.9f}, {6, 0.8f}}};
        QCOMPARE(entriesOf(mergeCandidates(repeated, 10)), (std::vector<std::uint32_t>{5, 6}));
    }
    void groupsByIdSetInRankOrder() {
        const NameDictionary dictionary{
            {"heart attack", {"MESH:D009203"}},                      // 0
            {"myocardial infarction", {"MESH:D009203"}},             // 1
            {"cold", {"MESH:D003139", "MESH:D003141"}},              // 2: a homonym left unresolved
            {"common cold", {"MESH:D003139"}},                       // 3
            {"cold (ambiguous)", {"MESH:D003141", "MESH:D003139"}},  // 4: same set, other order
        };
        const std::vector<Candidate> ranked{{2, 0.9f}, {0, 0.8f}, {4, 0.7f}, {1, 0.6f}, {3, 0.5f}};
        const auto groups = groupByConcept(ranked, dictionary);
        QCOMPARE(groups.size(), std::size_t{3});
        QCOMPARE(groups[0].ids, (std::vector<std::string>{"MESH:D003139", "MESH:D003141"}));
        QVERIFY(groups[0].ambiguous());
        QCOMPARE(groups[0].entries, (std::vector<std::uint32_t>{2, 4}));
        QCOMPARE(groups[0].firstRank, std::size_t{0});
        QCOMPARE(groups[0].bestScore, 0.9f);
        QCOMPARE(groups[1].ids, std::vector<std::string>{"MESH:D009203"});
        QVERIFY(!groups[1].ambiguous());
        QCOMPARE(groups[1].entries, (std::vector<std::uint32_t>{0, 1}));
        QCOMPARE(groups[1].firstRank, std::size_t{1});
        QCOMPARE(groups[2].ids, std::vector<std::string>{"MESH:D003139"});
        QCOMPARE(groups[2].firstRank, std::size_t{4});
        QVERIFY(groupByConcept({}, dictionary).empty());
    }
    void entryOutsideTheDictionaryIsAnError() {
        const NameDictionary dictionary{{"a", {"X"}}};
        const std::vector<Candidate> ranked{{0, 1.0f}, {1, 0.5f}};
        QVERIFY_THROWS_EXCEPTION(Error, groupByConcept(ranked, dictionary));
    }
};

QTEST_APPLESS_MAIN(TestCandidateMerge)
#include "test_candidate_merge.moc"
