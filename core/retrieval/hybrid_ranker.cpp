#include "retrieval/hybrid_ranker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "util/error.h"
#include "util/parallel.h"

namespace linkscope::retrieval {
namespace {

bool better(const ScoredCandidate& a, const ScoredCandidate& b) noexcept {
    return a.score != b.score ? a.score > b.score : a.entry < b.entry;
}

// The lists of one query and the exact ranking of their union.
struct Ranking {
    std::vector<ScoredCandidate> ranked;
    bool certified = false;
};

}  // namespace

float sparseDot(const SparseVector& a, const SparseVector& b) noexcept {
    float sum = 0.0f;
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (i->term < j->term) {
            ++i;
        } else if (j->term < i->term) {
            ++j;
        } else {
            sum += i->weight * j->weight;
            ++i;
            ++j;
        }
    }
    return sum;
}

HybridRanker::HybridRanker(const NameDictionary& dictionary, const SparseIndex& sparse,
                           std::span<const float> entryVectors, std::size_t dimension, DenseSearchFn denseSearch,
                           float sparseWeight)
    : HybridRanker(
          dictionary, sparse,
          [entryVectors, dimension](std::uint32_t entry, std::vector<float>&) {
              return entryVectors.subspan(std::size_t{entry} * dimension, dimension);
          },
          dimension, std::move(denseSearch), sparseWeight) {
    if (entryVectors.size() != dictionary.size() * dimension)
        throw Error("hybrid ranking: " + std::to_string(entryVectors.size() / dimension) + " vectors for " +
                    std::to_string(dictionary.size()) + " dictionary entries");
}

HybridRanker::HybridRanker(const NameDictionary& dictionary, const SparseIndex& sparse, EntryRowFn entryRow,
                           std::size_t dimension, DenseSearchFn denseSearch, float sparseWeight)
    : dictionary_(&dictionary),
      sparse_(&sparse),
      entryRow_(std::move(entryRow)),
      dimension_(dimension),
      denseSearch_(std::move(denseSearch)),
      sparseWeight_(sparseWeight) {
    if (dimension_ == 0) throw Error("hybrid ranking: the vector dimension is 0");
    if (!entryRow_) throw Error("hybrid ranking: no way to read the names' vectors");
    if (sparse.size() != dictionary.size())
        throw Error("hybrid ranking: the sparse index holds " + std::to_string(sparse.size()) +
                    " names, the dictionary " + std::to_string(dictionary.size()));
    // A negative weight would make a low sparse score raise S, and the bound on unseen names
    // (which takes their sparse score to be at most the K-th one) would no longer hold.
    if (!(sparseWeight_ >= 0.0f) || !std::isfinite(sparseWeight_))
        throw Error("hybrid ranking: the sparse weight must be a finite number >= 0");
    if (!denseSearch_) throw Error("hybrid ranking: no dense search");
}

ScoredCandidate HybridRanker::score(const SparseVector& query, std::span<const float> queryVector,
                                    std::uint32_t entry) const {
    ScoredCandidate scored;
    scored.entry = entry;
    std::vector<float> scratch;  // allocated only by a reader that decodes rows
    const std::span<const float> row = entryRow_(entry, scratch);
    if (row.size() != dimension_)
        throw Error("hybrid ranking: entry " + std::to_string(entry) + " has a vector of " +
                    std::to_string(row.size()) + " values, not " + std::to_string(dimension_));
    float dense = 0.0f;
    for (std::size_t d = 0; d < dimension_; ++d) dense += queryVector[d] * row[d];
    scored.dense = dense;
    scored.sparse = sparseDot(query, sparse_->vectorizer().transform((*dictionary_)[entry].name));
    scored.score = scored.dense + sparseWeight_ * scored.sparse;
    return scored;
}

namespace {

// Rescores the union of two lists searched to depth K and says whether the first `depth` of it
// are the first `depth` of the whole dictionary.
Ranking rankUnion(const HybridRanker& ranker, const SparseVector& query, std::span<const float> queryVector,
                  std::span<const Candidate> sparseList, std::span<const Candidate> denseList, std::size_t searched,
                  std::size_t depth) {
    std::unordered_set<std::uint32_t> seen;
    Ranking out;
    out.ranked.reserve(sparseList.size() + denseList.size());
    for (const auto* list : {&sparseList, &denseList})
        for (const Candidate& c : *list)
            if (seen.insert(c.entry).second) out.ranked.push_back(ranker.score(query, queryVector, c.entry));
    std::sort(out.ranked.begin(), out.ranked.end(), better);

    // A name outside both lists has a sparse score at most the K-th one (0 when the sparse list
    // ended early: every name sharing a term is in it) and a dense score at most the K-th one
    // (none at all when the dense list holds every name).
    const bool allDense = denseList.size() < searched;
    if (allDense) {
        out.certified = true;
    } else {
        const float sparseBound = sparseList.size() < searched ? 0.0f : sparseList.back().score;
        const ScoredCandidate last = ranker.score(query, queryVector, denseList.back().entry);
        const float bound = last.dense + ranker.sparseWeight() * sparseBound;
        std::size_t above = 0;
        while (above < out.ranked.size() && out.ranked[above].score > bound) ++above;
        out.certified = above >= depth;
    }
    if (out.ranked.size() > depth) out.ranked.resize(depth);
    return out;
}

}  // namespace

std::vector<std::vector<ScoredCandidate>> HybridRanker::rank(std::span<const std::string> queryTexts,
                                                             std::span<const float> queryVectors, std::size_t depth,
                                                             unsigned threads, std::size_t* deepened) const {
    if (deepened) *deepened = 0;
    if (queryVectors.size() != queryTexts.size() * dimension_)
        throw Error("hybrid ranking: " + std::to_string(queryTexts.size()) + " queries but " +
                    std::to_string(queryVectors.size()) + " vector values (dimension " + std::to_string(dimension_) +
                    ")");
    std::vector<std::vector<ScoredCandidate>> results(queryTexts.size());
    if (queryTexts.empty() || depth == 0 || dictionary_->empty()) return results;

    // The certificate needs `depth` names above the bound d_K + lambda s_K, which lists only
    // `depth` long rarely give; lists four times as deep usually do (on random data as well),
    // and the rest search deeper one by one.
    constexpr std::size_t kFirstSearchFactor = 4;
    const std::size_t names = dictionary_->size();
    const std::size_t first = std::min(depth * kFirstSearchFactor, names);
    const auto sparseLists = sparse_->search(queryTexts, first, threads);
    const auto denseLists = denseSearch_(queryVectors, first);
    if (denseLists.size() != queryTexts.size())
        throw Error("hybrid ranking: the dense search returned the wrong number of lists");

    std::vector<std::uint8_t> certified(queryTexts.size(), 0);
    const unsigned workers = util::threadCount(threads);
    util::runOnThreads(workers, [&](unsigned t) {
        for (std::size_t q = t; q < queryTexts.size(); q += workers) {
            const SparseVector query = sparse_->vectorizer().transform(queryTexts[q]);
            Ranking ranking = rankUnion(*this, query, queryVectors.subspan(q * dimension_, dimension_), sparseLists[q],
                                        denseLists[q], first, depth);
            certified[q] = ranking.certified || first >= names;
            results[q] = std::move(ranking.ranked);
        }
    });

    // The few queries whose order is not yet certain search deeper, one at a time (the dense
    // search batches internally and need not be called from several threads).
    for (std::size_t q = 0; q < queryTexts.size(); ++q) {
        std::size_t searched = first;
        const std::span<const float> vector = queryVectors.subspan(q * dimension_, dimension_);
        const SparseVector query = certified[q] ? SparseVector{} : sparse_->vectorizer().transform(queryTexts[q]);
        if (deepened && !certified[q]) ++*deepened;
        while (!certified[q]) {
            searched = std::min(names, searched * 2);
            const auto sparseList = sparse_->search(queryTexts[q], searched);
            const auto denseList = denseSearch_(vector, searched);
            Ranking ranking = rankUnion(*this, query, vector, sparseList, denseList.at(0), searched, depth);
            certified[q] = ranking.certified || searched >= names;
            results[q] = std::move(ranking.ranked);
        }
    }
    return results;
}

std::vector<std::uint32_t> selectTrainingCandidates(std::span<const Candidate> sparse, std::span<const Candidate> dense,
                                                    std::size_t k, double denseRatio) {
    if (!(denseRatio >= 0.0 && denseRatio <= 1.0)) throw Error("the dense ratio must lie between 0 and 1");
    const auto denseCount = static_cast<std::size_t>(std::floor(denseRatio * static_cast<double>(k)));
    const std::size_t sparseCount = k - denseCount;
    std::vector<std::uint32_t> out;
    out.reserve(k);
    std::unordered_set<std::uint32_t> taken;
    const auto take = [&](std::span<const Candidate> list, std::size_t until) {
        for (const Candidate& c : list) {
            if (out.size() >= until) break;
            if (taken.insert(c.entry).second) out.push_back(c.entry);
        }
    };
    take(sparse.first(std::min(sparseCount, sparse.size())), sparseCount);
    take(dense, k);   // overlaps are skipped, so more dense candidates fill their places
    take(sparse, k);  // a short dense list leaves room for more sparse ones
    return out;
}

}  // namespace linkscope::retrieval
