// Building a DenseIndex: the FAISS index of each kind made and sized, the IVF kinds trained on a
// fixed-seed sample, and rows added in chunks with progress and cancellation between them.
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/impl/FaissException.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

#include "retrieval/dense_index.h"
#include "retrieval/dense_index_internal.h"
#include "util/error.h"

namespace linkscope::retrieval {
namespace {

using detail::FaissId;
using detail::kindLabel;
using detail::requireFinite;
using detail::ScopedOmpThreads;

// FAISS's k-means wants at least this many training points per list (it warns below it and
// the centroids it finds are poor), and a product quantizer of b bits needs 2^b points.
constexpr std::size_t kMinPointsPerList = 39;
// The most training points used per list (FAISS's own cap; more only slows training).
constexpr std::size_t kMaxPointsPerList = 256;
// Rows added to FAISS per call: small enough that progress and cancellation are checked often,
// large enough that OpenMP keeps every core busy within a call.
constexpr std::size_t kAddChunkRows = 16384;

// ----- IVF-PQ sizes --------------------------------------------------------------------------

struct IvfPqSizes {
    std::size_t lists = 0;
    std::size_t subquantizers = 0;
};

// The divisor of `dimension` nearest to dimension / 8 (the larger one on a tie): 8 dimensions
// per sub-quantizer byte is FAISS's usual trade of memory for recall.
std::size_t defaultSubquantizers(std::size_t dimension) {
    const double target = static_cast<double>(dimension) / 8.0;
    std::size_t best = 1;
    for (std::size_t m = 1; m <= dimension; ++m) {
        if (dimension % m != 0) continue;
        if (std::abs(static_cast<double>(m) - target) <= std::abs(static_cast<double>(best) - target)) best = m;
    }
    return best;
}

IvfPqSizes chooseIvfPqSizes(std::size_t count, std::size_t dimension, const DenseIndexOptions& options) {
    IvfPqSizes sizes;
    if (options.pqBits < 1 || options.pqBits > 16)
        throw Error("dense index: IVF-PQ needs 1 to 16 bits per sub-quantizer, not " + std::to_string(options.pqBits));
    sizes.lists = options.ivfLists;
    if (sizes.lists == 0) {
        // ~4 sqrt(n) lists (FAISS's guideline), but never more than the vectors can train.
        const auto byRoot = static_cast<std::size_t>(std::lround(4.0 * std::sqrt(static_cast<double>(count))));
        sizes.lists = std::max<std::size_t>(1, std::min(byRoot, count / kMinPointsPerList));
    }
    sizes.subquantizers = options.pqSubquantizers == 0 ? defaultSubquantizers(dimension) : options.pqSubquantizers;
    if (dimension % sizes.subquantizers != 0)
        throw Error("dense index: " + std::to_string(sizes.subquantizers) +
                    " PQ sub-quantizers do not divide the dimension " + std::to_string(dimension));
    const std::size_t needForLists = kMinPointsPerList * sizes.lists;
    const std::size_t needForPq = std::size_t{1} << options.pqBits;
    if (count < needForLists || count < needForPq)
        throw Error("dense index: IVF-PQ cannot be trained on " + std::to_string(count) + " vectors: " +
                    std::to_string(sizes.lists) + " inverted lists need at least " + std::to_string(needForLists) +
                    " (39 per list) and " + std::to_string(options.pqBits) + "-bit product quantizers need at least " +
                    std::to_string(needForPq) + "; use a flat or HNSW index for a dictionary this small");
    return sizes;
}

// IVF-fp16 trains its lists on this many vectors per list (FAISS's k-means wants 39 at least;
// more only slows training, and a builder's caller encodes every sample vector once more).
constexpr std::size_t kFp16PointsPerList = 64;

// ~sqrt(n) lists, at most n / 39: lists of about sqrt(n) vectors, so a query probing p lists
// reads p sqrt(n) fp16 vectors after comparing with sqrt(n) centroids.
std::size_t fp16Lists(std::size_t count, const DenseIndexOptions& options) {
    if (options.ivfLists > 0) return options.ivfLists;
    const auto byRoot = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(count))));
    return std::max<std::size_t>(1, std::min(byRoot, count / kMinPointsPerList));
}

// `rows` of `count` rows drawn without replacement by a fixed seed (the same index for the same
// vectors), in row order.
std::vector<std::size_t> sampleRowIndices(std::size_t count, std::size_t rows) {
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (rows >= count) return order;
    std::mt19937_64 random(0x4c53444e53u);
    for (std::size_t i = 0; i < rows; ++i)  // partial Fisher-Yates
        std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(i, count - 1)(random)]);
    order.resize(rows);
    std::sort(order.begin(), order.end());
    return order;
}

std::vector<float> gatherRows(std::span<const float> vectors, std::size_t dimension,
                              std::span<const std::size_t> rows) {
    std::vector<float> sample(rows.size() * dimension);
    for (std::size_t i = 0; i < rows.size(); ++i)
        std::copy_n(vectors.begin() + static_cast<std::ptrdiff_t>(rows[i] * dimension), dimension,
                    sample.begin() + static_cast<std::ptrdiff_t>(i * dimension));
    return sample;
}

}  // namespace

DenseIndex DenseIndex::build(std::span<const float> vectors, std::size_t dimension, std::string fingerprint,
                             const DenseIndexOptions& options, const ProgressSink* progress) {
    if (dimension == 0) throw Error("dense index: the dimension must be positive");
    if (vectors.size() % dimension != 0)
        throw Error("dense index: " + std::to_string(vectors.size()) + " values are not whole rows of dimension " +
                    std::to_string(dimension));
    const std::size_t count = vectors.size() / dimension;
    requireFinite(vectors, dimension, "vector");  // named by its row in `vectors`, not in a sample
    DenseIndexBuilder builder(dimension, count, std::move(fingerprint), options, progress);
    const auto& sampleRows = builder.trainingRows();
    if (sampleRows.size() == count && count > 0)
        builder.train(vectors);
    else if (!sampleRows.empty())
        builder.train(gatherRows(vectors, dimension, sampleRows));
    builder.add(vectors);
    return builder.finish();
}

// ----- the builder ---------------------------------------------------------------------------

struct DenseIndexBuilder::Building {
    std::unique_ptr<DenseIndex::State> state;
    DenseIndexOptions options;
    const ProgressSink* progress = nullptr;
    std::size_t expected = 0;
    std::size_t added = 0;
    std::vector<std::size_t> trainingRows;
    bool trained = false;

    faiss::IndexIVF* ivf() const { return dynamic_cast<faiss::IndexIVF*>(state->index.get()); }
};

DenseIndexBuilder::DenseIndexBuilder(std::size_t dimension, std::size_t expectedRows, std::string fingerprint,
                                     const DenseIndexOptions& options, const ProgressSink* progress)
    : building_(std::make_unique<Building>()) {
    if (dimension == 0) throw Error("dense index: the dimension must be positive");
    // Candidate::entry is 32-bit, and HNSW stores neighbours as signed 32-bit ids.
    if (expectedRows > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("dense index: " + std::to_string(expectedRows) + " vectors are more than an index can hold");
    Building& b = *building_;
    b.options = options;
    b.progress = progress;
    b.expected = expectedRows;
    b.state = std::make_unique<DenseIndex::State>();
    b.state->kind = options.kind;
    b.state->dimension = dimension;
    b.state->fingerprint = std::move(fingerprint);
    const auto d = static_cast<FaissId>(dimension);
    const ScopedOmpThreads threads(options.threads);
    try {
        switch (options.kind) {
            case DenseIndexKind::Flat:
                b.state->index = std::make_unique<faiss::IndexFlatIP>(d);
                break;
            case DenseIndexKind::Hnsw: {
                if (options.hnswM < 2) throw Error("dense index: HNSW needs M of at least 2");
                auto hnsw = std::make_unique<faiss::IndexHNSWFlat>(
                    static_cast<int>(dimension), static_cast<int>(options.hnswM), faiss::METRIC_INNER_PRODUCT);
                hnsw->hnsw.efConstruction = static_cast<int>(std::max<std::size_t>(1, options.hnswEfConstruction));
                b.state->index = std::move(hnsw);
                break;
            }
            case DenseIndexKind::IvfPq: {
                const IvfPqSizes sizes = chooseIvfPqSizes(expectedRows, dimension, options);
                auto quantizer = std::make_unique<faiss::IndexFlatIP>(d);
                auto ivf =
                    std::make_unique<faiss::IndexIVFPQ>(quantizer.get(), dimension, sizes.lists, sizes.subquantizers,
                                                        options.pqBits, faiss::METRIC_INNER_PRODUCT);
                ivf->own_fields = true;  // the IVF index deletes its quantizer from here on
                static_cast<void>(quantizer.release());
                // FAISS prints a warning to stderr when a sub-quantizer's k-means has fewer than
                // 39 points per centroid (9,984 at 8 bits); core never prints, and the 2^bits
                // minimum checked above is what it cannot do without.
                ivf->pq.cp.min_points_per_centroid = 1;
                b.trainingRows =
                    sampleRowIndices(expectedRows, std::min(expectedRows, kMaxPointsPerList * sizes.lists));
                b.state->index = std::move(ivf);
                break;
            }
            case DenseIndexKind::IvfFp16: {
                if (expectedRows == 0) throw Error("dense index: an IVF-fp16 index cannot be trained on 0 vectors");
                const std::size_t lists = fp16Lists(expectedRows, options);
                if (lists > expectedRows)
                    throw Error("dense index: " + std::to_string(lists) + " inverted lists cannot be trained on " +
                                std::to_string(expectedRows) + " vectors");
                auto quantizer = std::make_unique<faiss::IndexFlatIP>(d);
                // Vectors are stored as they are, not as residuals from their list's centroid: a row
                // then decodes without its list (row()), at the same fp16 precision.
                auto ivf = std::make_unique<faiss::IndexIVFScalarQuantizer>(quantizer.get(), dimension, lists,
                                                                            faiss::ScalarQuantizer::QT_fp16,
                                                                            faiss::METRIC_INNER_PRODUCT, false);
                ivf->own_fields = true;
                static_cast<void>(quantizer.release());
                ivf->cp.min_points_per_centroid = 1;  // a small sample is deliberate (see kFp16PointsPerList)
                b.trainingRows = sampleRowIndices(expectedRows, std::min(expectedRows, kFp16PointsPerList * lists));
                b.state->index = std::move(ivf);
                break;
            }
        }
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: FAISS could not make the " + kindLabel(options.kind) + " index: " + e.what());
    }
    b.trained = b.trainingRows.empty();
}

DenseIndexBuilder::DenseIndexBuilder(DenseIndexBuilder&&) noexcept = default;
DenseIndexBuilder& DenseIndexBuilder::operator=(DenseIndexBuilder&&) noexcept = default;
DenseIndexBuilder::~DenseIndexBuilder() = default;

const std::vector<std::size_t>& DenseIndexBuilder::trainingRows() const noexcept { return building_->trainingRows; }

void DenseIndexBuilder::train(std::span<const float> sample) {
    Building& b = *building_;
    const std::size_t dimension = b.state->dimension;
    if (b.trainingRows.empty()) throw Error("dense index: a " + kindLabel(b.state->kind) + " index needs no training");
    if (b.trained) throw Error("dense index: the index was trained already");
    if (sample.size() != b.trainingRows.size() * dimension)
        throw Error("dense index: " + std::to_string(sample.size()) + " training values given for " +
                    std::to_string(b.trainingRows.size()) + " rows of dimension " + std::to_string(dimension));
    requireFinite(sample, dimension, "training vector");
    const ScopedOmpThreads threads(b.options.threads);
    if (b.progress) (*b.progress)("Training vector quantizers", 0.0);
    try {
        b.state->index->train(static_cast<FaissId>(b.trainingRows.size()), sample.data());
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: FAISS could not train the " + kindLabel(b.state->kind) + " index: " + e.what());
    }
    b.trained = true;
}

void DenseIndexBuilder::add(std::span<const float> rows) {
    Building& b = *building_;
    const std::size_t dimension = b.state->dimension;
    if (!b.trained)
        throw Error("dense index: rows added before the " + kindLabel(b.state->kind) + " index was trained");
    if (rows.size() % dimension != 0)
        throw Error("dense index: " + std::to_string(rows.size()) + " values are not whole rows of dimension " +
                    std::to_string(dimension));
    const std::size_t count = rows.size() / dimension;
    if (count > b.expected - b.added)
        throw Error("dense index: " + std::to_string(b.added + count) + " rows added to an index announced with " +
                    std::to_string(b.expected));
    requireFinite(rows, dimension, "vector");
    const ScopedOmpThreads threads(b.options.threads);
    try {
        for (std::size_t first = 0; first < count; first += kAddChunkRows) {
            if (b.progress) {
                b.progress->checkCancelled();
                (*b.progress)("Indexing vectors", static_cast<double>(b.added + first) /
                                                      static_cast<double>(std::max<std::size_t>(1, b.expected)));
            }
            const std::size_t chunk = std::min(kAddChunkRows, count - first);
            b.state->index->add(static_cast<FaissId>(chunk), rows.data() + first * dimension);
        }
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: FAISS could not add vectors to the " + kindLabel(b.state->kind) +
                    " index: " + e.what());
    }
    b.added += count;
}

DenseIndex DenseIndexBuilder::finish() {
    Building& b = *building_;
    if (!b.state) throw Error("dense index: the builder has handed its index over already");
    if (b.added != b.expected)
        throw Error("dense index: " + std::to_string(b.added) + " rows added to an index announced with " +
                    std::to_string(b.expected));
    if (!b.trained) throw Error("dense index: the " + kindLabel(b.state->kind) + " index was never trained");
    try {
        // IVF-fp16 gives single rows back (DenseIndex::row): FAISS needs a row-to-list map for it
        // (8 bytes per row).
        if (b.state->kind == DenseIndexKind::IvfFp16) b.ivf()->make_direct_map(true);
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: FAISS could not map the rows of the index: " + std::string(e.what()));
    }
    b.state->applySearchOptions(b.options);
    if (b.progress) (*b.progress)("Indexing vectors", 1.0);
    DenseIndex result;
    result.state_ = std::move(b.state);
    return result;
}

}  // namespace linkscope::retrieval
