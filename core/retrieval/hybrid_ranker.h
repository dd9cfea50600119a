#pragma once
// BioSyn's hybrid scoring, S(m, n) = S_dense(m, n) + lambda * S_sparse(m, n) (Sung et al. 2020,
// eq. 5), and its two uses:
//
//  - Inference ranks the whole dictionary by S. BioSyn computes the full mentions x names score
//    matrix; we rank the union of the sparse and the dense top lists instead, rescored exactly,
//    which gives the same ranking: a name in neither list scores at most d_K + lambda * s_K (the
//    K-th dense and sparse scores), so every union member above that bound is ranked exactly
//    among all names. When fewer than `depth` members clear it, the lists are deepened (K
//    doubled) for that query until they do or K covers the dictionary. Requires lambda >= 0.
//  - Training draws k candidates per mention with the dense ratio alpha: k - floor(alpha k) from
//    the sparse list, floor(alpha k) from the dense list, more dense ones in place of those
//    already taken from the sparse list ("whenever the dense and sparse candidates overlap, we
//    add more dense candidates to match the number of candidates as k", section 3.3).
//
// This file knows nothing of encoders or FAISS: the caller encodes the queries and hands a
// search function over the dense index, so the scoring is testable by hand on small cases.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "retrieval/name_dictionary.h"
#include "retrieval/sparse_index.h"

namespace linkscope::retrieval {

/// A ranked name with the parts of its score, for the ranking views and error analysis.
struct ScoredCandidate {
    std::uint32_t entry = 0;
    float score = 0.0f;   ///< dense + lambda * sparse
    float dense = 0.0f;   ///< inner product of the query's and the name's vectors
    float sparse = 0.0f;  ///< TF-IDF cosine (0 when the name shares no term with the query)
};

/// The dense half: the k best entries for each query vector (queries.size() / dimension of them),
/// best first -- a DenseIndex search or brute force. The certificate above assumes it is exact
/// (a flat index); with HNSW or IVF-PQ the ranking is as good as their recall.
using DenseSearchFn = std::function<std::vector<std::vector<Candidate>>(std::span<const float> queries, std::size_t k)>;

/// One dictionary entry's vector: a view of rows kept elsewhere, or the row decoded into
/// `scratch` (an index that keeps the only copy of millions of names, DenseIndex::row).
using EntryRowFn = std::function<std::span<const float>(std::uint32_t entry, std::vector<float>& scratch)>;

class HybridRanker {
public:
    /// entryVectors: one row of `dimension` floats per dictionary entry, in dictionary order (the
    /// vectors the dense index was built from). sparseWeight is BioSyn's lambda (learned; the
    /// paper reports values between 2 and 4). All references must outlive the ranker.
    HybridRanker(const NameDictionary& dictionary, const SparseIndex& sparse, std::span<const float> entryVectors,
                 std::size_t dimension, DenseSearchFn denseSearch, float sparseWeight);
    /// The same with the rows read through `entryRow` (called from several threads at once).
    HybridRanker(const NameDictionary& dictionary, const SparseIndex& sparse, EntryRowFn entryRow,
                 std::size_t dimension, DenseSearchFn denseSearch, float sparseWeight);

    /// The `depth` best entries for each query by S, ties by entry index. queryTexts as the
    /// sparse index analyzes them; queryVectors row-major, one row per text. Sparse searches and
    /// the exact rescoring run on `threads` threads (0: one per core); the dense searches are
    /// batched. Throws Error when the sizes disagree. deepened (optional) receives the number of
    /// queries whose lists had to be searched deeper to certify their order.
    std::vector<std::vector<ScoredCandidate>> rank(std::span<const std::string> queryTexts,
                                                   std::span<const float> queryVectors, std::size_t depth,
                                                   unsigned threads = 0, std::size_t* deepened = nullptr) const;

    /// Exact parts of the score of one entry for a query.
    ScoredCandidate score(const SparseVector& query, std::span<const float> queryVector, std::uint32_t entry) const;

    float sparseWeight() const noexcept { return sparseWeight_; }
    std::size_t dimension() const noexcept { return dimension_; }

private:
    const NameDictionary* dictionary_;
    const SparseIndex* sparse_;
    EntryRowFn entryRow_;
    std::size_t dimension_;
    DenseSearchFn denseSearch_;
    float sparseWeight_;
};

/// BioSyn's training candidates: k entries, k - floor(alpha k) from the sparse list first, then
/// dense ones not already taken, then the rest of the sparse list if the dense one runs out. Lists
/// are best first; the result keeps that order (sparse part, then dense part).
std::vector<std::uint32_t> selectTrainingCandidates(std::span<const Candidate> sparse, std::span<const Candidate> dense,
                                                    std::size_t k, double denseRatio);

/// The inner product of two sorted sparse rows, accumulated in float in ascending term order:
/// the sum the sparse index computes, bit for bit.
float sparseDot(const SparseVector& a, const SparseVector& b) noexcept;

}  // namespace linkscope::retrieval
