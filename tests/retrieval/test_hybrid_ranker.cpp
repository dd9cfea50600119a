// BioSyn's hybrid score S = S_dense + lambda * S_sparse: the parts checked by hand on a small
// dictionary, the union-of-lists ranking held to a brute-force ranking of every name, and the
// training candidates drawn with the dense ratio.
#include <algorithm>
#include <random>

#include "retrieval/hybrid_ranker.h"
#include "retrieval/tfidf_settings.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

// Exact inner products against every row, best first, ties by row: the dense search the
// certificate assumes.
DenseSearchFn bruteForce(const std::vector<float>& vectors, std::size_t dimension) {
    return [&vectors, dimension](std::span<const float> queries, std::size_t k) {
        std::vector<std::vector<Candidate>> out;
        const std::size_t rows = vectors.size() / dimension;
        for (std::size_t q = 0; q * dimension < queries.size(); ++q) {
            std::vector<Candidate> all;
            for (std::uint32_t r = 0; r < rows; ++r) {
                float dot = 0.0f;
                for (std::size_t d = 0; d < dimension; ++d)
                    dot += queries[q * dimension + d] * vectors[r * dimension + d];
                all.push_back({r, dot});
            }
            std::stable_sort(all.begin(), all.end(),
                             [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
            if (all.size() > k) all.resize(k);
            out.push_back(std::move(all));
        }
        return out;
    };
}

std::vector<std::uint32_t> entriesOf(const std::vector<ScoredCandidate>& ranked) {
    std::vector<std::uint32_t> entries;
    for (const auto& c : ranked) entries.push_back(c.entry);
    return entries;
}

}  // namespace

class TestHybridRanker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void scoresByHand() {
        // Names: 0 is the query itself (sparse cosine 1), 1 shares no character with it (sparse
        // 0), 2 shares some. Two-dimensional vectors make the dense parts easy to compute.
        const NameDictionary dictionary{{"abc", {"X:1"}}, {"xyz", {"X:2"}}, {"abd", {"X:3"}}};
        const SparseIndex sparse = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        const std::vector<float> vectors{1.0f, 0.0f, 0.0f, 1.0f, 0.6f, 0.8f};
        const HybridRanker ranker(dictionary, sparse, vectors, 2, bruteForce(vectors, 2), 2.0f);
        const std::vector<std::string> texts{"abc"};
        const std::vector<float> query{0.8f, 0.6f};
        const auto ranked = ranker.rank(texts, query, 3, 1).at(0);
        QCOMPARE(ranked.size(), std::size_t{3});

        // Dense: <(0.8,0.6),(1,0)> = 0.8; <.,(0,1)> = 0.6; <.,(0.6,0.8)> = 0.48 + 0.48 = 0.96.
        // Sparse: "abc" against itself is 1 (rows are l2-normalized); "xyz" shares nothing: 0;
        // "abd" shares a, b, ab: strictly between 0 and 1 -- the index's own score.
        const float abdSparse = sparse.search("abc", 3).at(1).score;
        QVERIFY(abdSparse > 0.0f && abdSparse < 1.0f);
        // S = dense + 2 * sparse: abc 0.8 + 2 = 2.8; abd 0.96 + 2 * s; xyz 0.6.
        QCOMPARE(ranked[0].entry, 0u);
        QVERIFY(qAbs(ranked[0].dense - 0.8f) < 1e-6f);
        QVERIFY(qAbs(ranked[0].sparse - 1.0f) < 1e-6f);
        QVERIFY(qAbs(ranked[0].score - 2.8f) < 1e-5f);
        QCOMPARE(ranked[1].entry, 2u);
        QVERIFY(qAbs(ranked[1].dense - 0.96f) < 1e-6f);
        QCOMPARE(ranked[1].sparse, abdSparse);  // the same float sum as the index
        QCOMPARE(ranked[1].score, 0.96f + 2.0f * abdSparse);
        QCOMPARE(ranked[2].entry, 1u);
        QCOMPARE(ranked[2].sparse, 0.0f);
        QVERIFY(qAbs(ranked[2].score - 0.6f) < 1e-6f);

        // With lambda 0 the ranking is the dense one: abd 0.96, abc 0.8, xyz 0.6.
        const HybridRanker denseOnly(dictionary, sparse, vectors, 2, bruteForce(vectors, 2), 0.0f);
        QCOMPARE(entriesOf(denseOnly.rank(texts, query, 3, 1).at(0)), (std::vector<std::uint32_t>{2, 0, 1}));
    }

    void unionRankingEqualsFullRanking_data() {
        QTest::addColumn<float>("lambda");
        QTest::addColumn<std::size_t>("depth");
        QTest::addColumn<bool>("deepens");  // some (not all) queries need the deeper search
        QTest::newRow("dense dominates") << 0.05f << std::size_t{5} << false;
        QTest::newRow("balanced") << 1.0f << std::size_t{10} << false;
        QTest::newRow("sparse dominates") << 20.0f << std::size_t{3} << true;
        QTest::newRow("deeper than the dictionary") << 2.0f << std::size_t{500} << false;
    }
    void unionRankingEqualsFullRanking() {
        // Random names over a small alphabet and random vectors: whatever the lists hold, the
        // union ranking (deepened when its order is not certain) must be the ranking of every
        // name by S, which is what BioSyn computes with its full score matrix.
        QFETCH(float, lambda);
        QFETCH(std::size_t, depth);
        QFETCH(bool, deepens);
        std::mt19937 random(7);
        std::uniform_int_distribution<int> letter(0, 5);
        std::uniform_int_distribution<int> length(2, 7);
        std::normal_distribution<float> gauss(0.0f, 1.0f);
        const auto randomName = [&] {
            std::string name;
            for (int i = length(random); i > 0; --i) name += static_cast<char>('a' + letter(random));
            return name;
        };
        NameDictionary dictionary;
        for (int i = 0; i < 300; ++i) dictionary.push_back({randomName(), {"X:" + std::to_string(i)}});
        const std::size_t dimension = 8;
        std::vector<float> vectors(dictionary.size() * dimension);
        for (float& v : vectors) v = gauss(random);
        const SparseIndex sparse = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        const HybridRanker ranker(dictionary, sparse, vectors, dimension, bruteForce(vectors, dimension), lambda);

        std::vector<std::string> texts;
        std::vector<float> queries;
        for (int q = 0; q < 40; ++q) {
            texts.push_back(randomName());
            for (std::size_t d = 0; d < dimension; ++d) queries.push_back(gauss(random));
        }
        std::size_t deepened = 0;
        const auto ranked = ranker.rank(texts, queries, depth, 2, &deepened);
        QCOMPARE(ranked.size(), texts.size());
        // Where the sparse score dominates, the first lists often hold too few names above the
        // bound: that row makes sure the deeper search runs (and is right).
        if (deepens) QVERIFY(deepened > 0 && deepened < texts.size());
        for (std::size_t q = 0; q < texts.size(); ++q) {
            const SparseVector query = sparse.vectorizer().transform(texts[q]);
            std::vector<ScoredCandidate> all;
            for (std::uint32_t e = 0; e < dictionary.size(); ++e)
                all.push_back(ranker.score(query, std::span(queries).subspan(q * dimension, dimension), e));
            std::sort(all.begin(), all.end(), [](const ScoredCandidate& a, const ScoredCandidate& b) {
                return a.score != b.score ? a.score > b.score : a.entry < b.entry;
            });
            all.resize(std::min(depth, all.size()));
            QCOMPARE(entriesOf(ranked[q]), entriesOf(all));
        }
    }

    void rejectsInconsistentInputs() {
        const NameDictionary dictionary{{"abc", {"X:1"}}, {"xyz", {"X:2"}}};
        const SparseIndex sparse = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        const std::vector<float> vectors{1.0f, 0.0f, 0.0f, 1.0f};
        const std::vector<float> tooFew{1.0f, 0.0f};
        QVERIFY_THROWS_EXCEPTION(Error, HybridRanker(dictionary, sparse, tooFew, 2, bruteForce(tooFew, 2), 1.0f));
        QVERIFY_THROWS_EXCEPTION(Error, HybridRanker(dictionary, sparse, vectors, 2, bruteForce(vectors, 2), -1.0f));
        const HybridRanker ranker(dictionary, sparse, vectors, 2, bruteForce(vectors, 2), 1.0f);
        const std::vector<std::string> texts{"abc", "xyz"};
        const std::vector<float> oneVector{1.0f, 0.0f};
        QVERIFY_THROWS_EXCEPTION(Error, ranker.rank(texts, oneVector, 2));
        QVERIFY(ranker.rank({}, {}, 2).empty());
    }

    void trainingCandidatesFollowTheDenseRatio() {
        const std::vector<Candidate> sparse{{1, 0.9f}, {2, 0.8f}, {3, 0.7f}, {4, 0.6f}};
        const std::vector<Candidate> dense{{2, 0.99f}, {5, 0.9f}, {6, 0.8f}, {7, 0.7f}};
        using V = std::vector<std::uint32_t>;
        // k = 4, alpha = 0.5: 2 sparse (1, 2), then dense skipping 2 (already taken): 5, 6.
        QCOMPARE(selectTrainingCandidates(sparse, dense, 4, 0.5), (V{1, 2, 5, 6}));
        // alpha = 0: sparse only; alpha = 1: dense only.
        QCOMPARE(selectTrainingCandidates(sparse, dense, 4, 0.0), (V{1, 2, 3, 4}));
        QCOMPARE(selectTrainingCandidates(sparse, dense, 4, 1.0), (V{2, 5, 6, 7}));
        // k = 5, alpha = 0.5: floor(2.5) = 2 dense, 3 sparse (1, 2, 3), dense 5, 6.
        QCOMPARE(selectTrainingCandidates(sparse, dense, 5, 0.5), (V{1, 2, 3, 5, 6}));
        // A dense list that runs out leaves its places to further sparse candidates.
        const std::vector<Candidate> shortDense{{5, 0.9f}};
        QCOMPARE(selectTrainingCandidates(sparse, shortDense, 4, 0.5), (V{1, 2, 5, 3}));
        QVERIFY_THROWS_EXCEPTION(Error, selectTrainingCandidates(sparse, dense, 4, 1.5));
    }
};

QTEST_APPLESS_MAIN(TestHybridRanker)
#include "test_hybrid_ranker.moc"
