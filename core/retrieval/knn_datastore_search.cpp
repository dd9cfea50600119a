// KnnDatastore's search: exact cosine similarity over every key with a deterministic top-k, one
// query by dot products or a batch by matrix products, and merging a new key into kept lists.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "retrieval/knn_datastore.h"
#include "retrieval/knn_datastore_internal.h"
#include "retrieval/top_k.h"
#include "util/error.h"
#include "util/inner_products.h"

namespace linkscope::retrieval {
namespace {

using detail::normalizedRows;

// The inner product with sixteen independent partial sums. Debian's FAISS (1.7.3, built for
// generic x86-64) implements faiss::fvec_inner_products_ny with its scalar reference loop, one
// dependent addition per element; these lanes need no reassociation, so the compiler turns
// them into SIMD instructions on any target, and the additions do not wait on each other
// (benchmarks/knn_datastore measures both).
constexpr std::size_t kLanes = 16;

float dot(const float* a, const float* b, std::size_t dimension) noexcept {
    float lanes[kLanes] = {};
    std::size_t i = 0;
    for (; i + kLanes <= dimension; i += kLanes)
    // Unrolled, the lanes stay in registers at -O2 too (RelWithDebInfo), as at -O3; without
    // it GCC's -O2 code keeps them in memory (benchmarks/knn_datastore).
#pragma GCC unroll 16
        for (std::size_t lane = 0; lane < kLanes; ++lane) lanes[lane] += a[i + lane] * b[i + lane];
    float tail = 0.0f;
    for (; i < dimension; ++i) tail += a[i] * b[i];
    for (std::size_t width = kLanes / 2; width > 0; width /= 2)  // pairwise, in a fixed order
        for (std::size_t lane = 0; lane < width; ++lane) lanes[lane] += lanes[lane + width];
    return lanes[0] + tail;
}

// ----- top-k ---------------------------------------------------------------------------------

// Better first: higher similarity, then the lower (older) key id (neighborRanksBefore, here
// inline for the heaps of search() and for mergeNeighbor).
struct NeighborOrder {
    bool operator()(const DatastoreNeighbor& a, const DatastoreNeighbor& b) const noexcept {
        return a.similarity > b.similarity || (a.similarity == b.similarity && a.key < b.key);
    }
};

// A query's k nearest keys while search() passes over the store.
using NeighborTopK = detail::BasicTopK<DatastoreNeighbor, NeighborOrder>;

// Below this a neighbour cannot enter `top` (-infinity until it is full).
float floorOf(const NeighborTopK& top) noexcept {
    if (!top.full()) return -std::numeric_limits<float>::infinity();
    return top.k() == 0 ? std::numeric_limits<float>::infinity() : top.worst().similarity;
}

// Rows scored per block: a block's scores stay in L1 and, for a batch of queries, its vectors
// in L2 while every query passes over them.
constexpr std::size_t kBlockFloats = 1 << 16;

// From this many queries on, search() scores by matrix products (util/inner_products.h); below
// it, a product's fixed cost outweighs what it saves. Blocks of 256 queries x 4,096 keys keep
// the scores bounded, and are large enough for LibTorch's product to run at full speed
// (benchmarks/knn_datastore).
constexpr std::size_t kProductMinQueries = 8;
constexpr std::size_t kProductQueries = 256;
constexpr std::size_t kProductKeyRows = 4096;

}  // namespace

bool neighborRanksBefore(const DatastoreNeighbor& a, const DatastoreNeighbor& b) noexcept {
    return NeighborOrder{}(a, b);
}

std::optional<std::size_t> mergeNeighbor(std::span<DatastoreNeighbor> nearest, std::size_t& count,
                                         const DatastoreNeighbor& candidate) noexcept {
    const std::size_t k = nearest.size();
    if (count > k) count = k;
    if (k == 0 || (count == k && !NeighborOrder{}(candidate, nearest[k - 1]))) return std::nullopt;
    // Its place among the first `count`, which shift down by one (the k-th falls off a full list).
    const auto place = std::upper_bound(nearest.begin(), nearest.begin() + static_cast<std::ptrdiff_t>(count),
                                        candidate, NeighborOrder{});
    const auto last = nearest.begin() + static_cast<std::ptrdiff_t>(count < k ? count + 1 : k);
    std::move_backward(place, last - 1, last);
    *place = candidate;
    if (count < k) ++count;
    return static_cast<std::size_t>(place - nearest.begin());
}

std::vector<std::vector<DatastoreNeighbor>> KnnDatastore::search(std::span<const float> queries, std::size_t k) const {
    if (queries.size() % dimension_ != 0)
        throw Error("kNN datastore: " + std::to_string(queries.size()) +
                    " query values are not whole rows of dimension " + std::to_string(dimension_));
    const std::size_t queryCount = queries.size() / dimension_;
    const std::vector<float> normalized = normalizedRows(queries, dimension_, "query");
    const std::size_t rows = keyIds_.size();
    const std::size_t keep = std::min(k, rows);
    std::vector<std::vector<DatastoreNeighbor>> results(queryCount);
    std::vector<NeighborTopK> heaps;
    heaps.reserve(queryCount);
    for (auto& nearest : results) heaps.emplace_back(nearest, keep);
    // Offers one row to a query's heap, scored by dot(): both paths below end here, so they
    // give the same neighbours with the same similarities.
    const auto offer = [&](NeighborTopK& heap, const float* query, std::size_t row) {
        // Rounding can take a cosine a hair past ±1; clamped before ranking so that the order
        // agrees with the similarities reported.
        const float similarity = std::clamp(dot(query, vectors_.data() + row * dimension_, dimension_), -1.0f, 1.0f);
        if (similarity < floorOf(heap)) return;  // the common case, decided cheaply
        heap.offer({keyIds_[row], keyEntities_[row], similarity});
    };
    if (keep > 0 && queryCount < kProductMinQueries) {
        // A few queries (a curator's click): one pass over the keys, block by block.
        const std::size_t blockRows = std::max<std::size_t>(1, kBlockFloats / dimension_);
        for (std::size_t first = 0; first < rows; first += blockRows) {
            const std::size_t end = std::min(rows, first + blockRows);
            for (std::size_t q = 0; q < queryCount; ++q)
                for (std::size_t row = first; row < end; ++row)
                    offer(heaps[q], normalized.data() + q * dimension_, row);
        }
    } else if (keep > 0) {
        // Many queries (ranking a whole corpus): a matrix product scores a block of queries
        // against a block of keys at once, several times faster than the dot products. Its
        // additions come in another order, so its scores only rule rows out: a row whose product
        // score, raised by twice the rounding bound, is below the heap's floor cannot enter it
        // (its dot() score is at most that); the rest are scored by dot() as above.
        const auto slack = static_cast<float>(2.0 * util::innerProductRoundingBound(dimension_));
        const std::size_t queryBlock = std::min(queryCount, kProductQueries);
        std::vector<float> scores(queryBlock * std::min(rows, kProductKeyRows));
        for (std::size_t firstQuery = 0; firstQuery < queryCount; firstQuery += kProductQueries) {
            const std::size_t blockQueries = std::min(kProductQueries, queryCount - firstQuery);
            const auto blockVectors =
                std::span<const float>(normalized).subspan(firstQuery * dimension_, blockQueries * dimension_);
            for (std::size_t firstRow = 0; firstRow < rows; firstRow += kProductKeyRows) {
                const std::size_t blockRows = std::min(kProductKeyRows, rows - firstRow);
                const auto blockScores = std::span<float>(scores).first(blockQueries * blockRows);
                util::innerProducts(
                    blockVectors,
                    std::span<const float>(vectors_).subspan(firstRow * dimension_, blockRows * dimension_), dimension_,
                    blockScores);
                for (std::size_t q = 0; q < blockQueries; ++q) {
                    NeighborTopK& heap = heaps[firstQuery + q];
                    const float* query = blockVectors.data() + q * dimension_;
                    const float* score = blockScores.data() + q * blockRows;
                    for (std::size_t r = 0; r < blockRows; ++r) {
                        if (std::clamp(score[r] + slack, -1.0f, 1.0f) < floorOf(heap)) continue;
                        offer(heap, query, firstRow + r);
                    }
                }
            }
        }
    }
    for (auto& heap : heaps) heap.finish();
    return results;
}

std::vector<DatastoreNeighbor> KnnDatastore::asNeighbors(std::span<const float> queries, std::uint64_t key) const {
    const auto found = rowOfKey_.find(key);
    if (found == rowOfKey_.end()) throw Error("kNN datastore: no key " + std::to_string(key));
    if (queries.size() % dimension_ != 0)
        throw Error("kNN datastore: " + std::to_string(queries.size()) +
                    " query values are not whole rows of dimension " + std::to_string(dimension_));
    const std::vector<float> normalized = normalizedRows(queries, dimension_, "query");
    const std::size_t row = found->second;
    const float* keyVector = vectors_.data() + row * dimension_;
    std::vector<DatastoreNeighbor> out(queries.size() / dimension_);
    for (std::size_t q = 0; q < out.size(); ++q)
        // search()'s `offer`: the same dot() and clamp, so the similarity is the one it lists.
        out[q] = {key, keyEntities_[row],
                  std::clamp(dot(normalized.data() + q * dimension_, keyVector, dimension_), -1.0f, 1.0f)};
    return out;
}

}  // namespace linkscope::retrieval
