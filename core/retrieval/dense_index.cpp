// DenseIndex's search: FAISS's k best with the exact tie order on top, what a built index holds
// (size, memory, its rows), and the brute-force reference. Building is in
// dense_index_builder.cpp, the file format in dense_index_io.cpp.
#include "retrieval/dense_index.h"

#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/FaissException.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "retrieval/dense_index_internal.h"
#include "retrieval/top_k.h"
#include "util/error.h"

namespace linkscope::retrieval {
namespace {

using detail::FaissId;
using detail::requireFinite;
using detail::ScopedOmpThreads;

// Extra results asked of FAISS beyond k, so that the rows tied with the k-th score can be
// re-ordered by row (see DenseIndex::search).
constexpr std::size_t kTieMargin = 8;

// One query's FAISS results as candidates, -1 labels (fewer results than asked) dropped,
// in the contract's order: score descending, row ascending.
std::vector<Candidate> toCandidates(const float* scores, const FaissId* labels, std::size_t count) {
    std::vector<Candidate> list;
    list.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        if (labels[i] >= 0) list.push_back({static_cast<std::uint32_t>(labels[i]), scores[i]});
    std::sort(list.begin(), list.end(), detail::ranksBefore);
    return list;
}

}  // namespace

std::string_view denseIndexKindName(DenseIndexKind kind) noexcept {
    switch (kind) {
        case DenseIndexKind::Flat:
            return "flat";
        case DenseIndexKind::Hnsw:
            return "hnsw";
        case DenseIndexKind::IvfPq:
            return "ivf-pq";
        case DenseIndexKind::IvfFp16:
            return "ivf-fp16";
    }
    return "unknown";
}

DenseIndex::DenseIndex() = default;
DenseIndex::DenseIndex(DenseIndex&&) noexcept = default;
DenseIndex& DenseIndex::operator=(DenseIndex&&) noexcept = default;
DenseIndex::~DenseIndex() = default;

std::vector<std::vector<Candidate>> DenseIndex::search(std::span<const float> queries, std::size_t k) const {
    if (!state_) throw Error("dense index: search before the index was built or loaded");
    const std::size_t dimension = state_->dimension;
    if (queries.size() % dimension != 0)
        throw Error("dense index: " + std::to_string(queries.size()) +
                    " query values are not whole rows of dimension " + std::to_string(dimension));
    requireFinite(queries, dimension, "query");
    const std::size_t queryCount = queries.size() / dimension;
    std::vector<std::vector<Candidate>> results(queryCount);
    const std::size_t size = state_->size();
    if (queryCount == 0 || k == 0 || size == 0) return results;

    const ScopedOmpThreads threads(state_->threads);
    const bool exact = state_->kind == DenseIndexKind::Flat;
    // Exact search asks for a few rows beyond k: rows tied with the k-th score that FAISS left
    // past k are then seen, and the re-sort puts the lowest rows of the tie first.
    std::size_t asked = std::min(size, exact ? k + kTieMargin : k);
    // Queries in batches, so that the result buffers stay bounded whatever k is.
    const std::size_t batch = std::max<std::size_t>(1, std::min(queryCount, (std::size_t{1} << 24) / asked));
    std::vector<float> scores;
    std::vector<FaissId> labels;
    try {
        for (std::size_t first = 0; first < queryCount; first += batch) {
            const std::size_t rows = std::min(batch, queryCount - first);
            state_->faissSearch(queries.data() + first * dimension, rows, asked, scores, labels);
            for (std::size_t q = 0; q < rows; ++q)
                results[first + q] = toCandidates(scores.data() + q * asked, labels.data() + q * asked, asked);
        }
        if (exact) {
            // A query whose tie at the k-th score reaches the last row asked for may have more
            // tied rows than FAISS returned: search it again, asking for twice as many, until
            // the tie ends inside the results or every row was returned. Rare, and costs one
            // single-query search per doubling.
            for (std::size_t q = 0; q < queryCount; ++q) {
                std::size_t wider = asked;
                auto* list = &results[q];
                while (list->size() > k && wider < size && list->back().score == (*list)[k - 1].score) {
                    wider = std::min(size, wider * 2);
                    state_->faissSearch(queries.data() + q * dimension, 1, wider, scores, labels);
                    *list = toCandidates(scores.data(), labels.data(), wider);
                }
            }
        }
    } catch (const faiss::FaissException& e) {
        throw Error(std::string("dense index: FAISS search failed: ") + e.what());
    }
    for (auto& list : results)
        if (list.size() > k) list.resize(k);
    return results;
}

std::size_t DenseIndex::size() const noexcept { return state_ ? state_->size() : 0; }
std::size_t DenseIndex::dimension() const noexcept { return state_ ? state_->dimension : 0; }
DenseIndexKind DenseIndex::kind() const noexcept { return state_ ? state_->kind : DenseIndexKind::Flat; }

const std::string& DenseIndex::fingerprint() const noexcept {
    static const std::string none;  // immutable: no shared mutable state
    return state_ ? state_->fingerprint : none;
}

std::size_t DenseIndex::memoryBytes() const noexcept {
    if (!state_ || !state_->index) return 0;
    const faiss::Index* index = state_->index.get();
    const std::size_t vectorBytes = state_->size() * state_->dimension * sizeof(float);
    if (const auto* hnsw = dynamic_cast<const faiss::IndexHNSW*>(index)) {
        const auto& graph = hnsw->hnsw;
        return vectorBytes + graph.neighbors.size() * sizeof(graph.neighbors[0]) +
               graph.offsets.size() * sizeof(graph.offsets[0]) + graph.levels.size() * sizeof(graph.levels[0]) +
               graph.assign_probas.size() * sizeof(double) + graph.cum_nneighbor_per_level.size() * sizeof(int);
    }
    if (const auto* ivf = dynamic_cast<const faiss::IndexIVF*>(index)) {
        std::size_t listBytes = 0;
        for (std::size_t list = 0; list < ivf->nlist; ++list)
            listBytes += ivf->invlists->list_size(list) * (ivf->code_size + sizeof(FaissId));
        const std::size_t quantizerBytes =
            static_cast<std::size_t>(ivf->quantizer->ntotal) * state_->dimension * sizeof(float);
        std::size_t extra = ivf->direct_map.array.size() * sizeof(FaissId);
        if (const auto* pq = dynamic_cast<const faiss::IndexIVFPQ*>(ivf))
            extra += pq->pq.centroids.size() * sizeof(float) + pq->precomputed_table.size() * sizeof(float);
        return listBytes + quantizerBytes + extra;
    }
    return vectorBytes;  // flat: the vectors themselves
}

std::vector<float> DenseIndex::vectors() const {
    std::vector<float> out;
    if (!state_ || !state_->index || state_->size() == 0) return out;
    out.resize(state_->size() * state_->dimension);
    // Flat and HNSW keep the vectors themselves. IVF-PQ keeps codes in inverted lists: each is
    // decoded where it lies (FAISS's reconstruct() would need a row-to-list map built into the
    // index, which changes it and what it saves); the decoded vectors are approximations.
    if (const auto* ivf = dynamic_cast<const faiss::IndexIVF*>(state_->index.get())) {
        const std::size_t dimension = state_->dimension;
        for (std::size_t list = 0; list < ivf->nlist; ++list) {
            const std::size_t length = ivf->invlists->list_size(list);
            for (std::size_t offset = 0; offset < length; ++offset) {
                const auto row = static_cast<std::size_t>(ivf->invlists->get_single_id(list, offset));
                ivf->reconstruct_from_offset(static_cast<std::int64_t>(list), static_cast<std::int64_t>(offset),
                                             out.data() + row * dimension);
            }
        }
        return out;
    }
    state_->index->reconstruct_n(0, state_->index->ntotal, out.data());
    return out;
}

void DenseIndex::row(std::size_t row, std::span<float> out) const {
    if (!state_ || !state_->index) throw Error("dense index: a row asked of an index not built or loaded");
    if (out.size() != state_->dimension)
        throw Error("dense index: a row of " + std::to_string(state_->dimension) + " dimensions asked into " +
                    std::to_string(out.size()) + " values");
    if (row >= state_->size())
        throw Error("dense index: row " + std::to_string(row) + " of an index of " + std::to_string(state_->size()));
    if (state_->kind == DenseIndexKind::IvfPq)
        throw Error("dense index: an IVF-PQ index keeps no map from rows to its lists and gives no single row back");
    try {
        state_->index->reconstruct(static_cast<FaissId>(row), out.data());
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: FAISS could not give row " + std::to_string(row) + " back: " + e.what());
    }
}

void DenseIndex::setSearchOptions(const DenseIndexOptions& options) {
    if (!state_) throw Error("dense index: search options set before the index was built or loaded");
    state_->applySearchOptions(options);
}

// ----- brute force ---------------------------------------------------------------------------

std::vector<std::vector<Candidate>> bruteForceSearch(std::span<const float> vectors, std::size_t dimension,
                                                     std::span<const float> queries, std::size_t k) {
    if (dimension == 0) throw Error("brute-force search: the dimension must be positive");
    if (vectors.size() % dimension != 0 || queries.size() % dimension != 0)
        throw Error("brute-force search: vectors or queries are not whole rows of dimension " +
                    std::to_string(dimension));
    const std::size_t count = vectors.size() / dimension;
    if (count > std::numeric_limits<std::uint32_t>::max())
        throw Error("brute-force search: more rows than a candidate can name");
    std::vector<std::vector<Candidate>> results(queries.size() / dimension);
    for (std::size_t q = 0; q < results.size(); ++q) {
        const auto query = queries.subspan(q * dimension, dimension);
        detail::TopK best(results[q], std::min(k, count));
        for (std::size_t row = 0; row < count; ++row) {
            const float* vector = vectors.data() + row * dimension;
            float score = 0.0f;  // in index order, so that the same inputs give the same floats
            for (std::size_t i = 0; i < dimension; ++i) score += vector[i] * query[i];
            best.offer(static_cast<std::uint32_t>(row), score);
        }
        best.finish();
    }
    return results;
}

}  // namespace linkscope::retrieval
