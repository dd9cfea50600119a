// FAISS behind dense_index.h (issue 4): building the index kinds (whole or in chunks), exact tie
// order on top of FAISS's search, and the file format (our header, FAISS's own serialization, a
// checksum).
#include "retrieval/dense_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <omp.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <string_view>
#include <utility>

#include "retrieval/faiss_payload_check.h"
#include "retrieval/top_k.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"

namespace linkscope::retrieval {
namespace {

using FaissId = faiss::Index::idx_t;

// FAISS's k-means wants at least this many training points per list (it warns below it and
// the centroids it finds are poor), and a product quantizer of b bits needs 2^b points.
constexpr std::size_t kMinPointsPerList = 39;
// The most training points used per list (FAISS's own cap; more only slows training).
constexpr std::size_t kMaxPointsPerList = 256;
// Rows added to FAISS per call: small enough for progress and cancellation every second or
// so, large enough that OpenMP keeps every core busy within a call.
constexpr std::size_t kAddChunkRows = 16384;
// Extra results asked of FAISS beyond k, so that the rows tied with the k-th score can be
// re-ordered by row (see searchExact).
constexpr std::size_t kTieMargin = 8;

std::string kindLabel(DenseIndexKind kind) { return std::string(denseIndexKindName(kind)); }

// ----- threads -------------------------------------------------------------------------------

// Sets OpenMP's thread count for the calling thread for one call, restoring it afterwards.
// omp_set_num_threads() changes the nthreads-var ICV of the calling thread's data environment
// only (OpenMP 5 §2.4; libgomp gives each native thread its own copy), so a GUI worker that
// searches with 1 thread does not slow the CLI thread's parallel regions, and restoring it
// keeps the caller's own setting. threads == 0 leaves OpenMP's default (OMP_NUM_THREADS or
// the number of cores) untouched.
class ScopedOmpThreads {
public:
    explicit ScopedOmpThreads(unsigned threads) : previous_(threads > 0 ? omp_get_max_threads() : 0) {
        if (threads > 0)
            omp_set_num_threads(static_cast<int>(std::min<unsigned>(threads, std::numeric_limits<int>::max())));
    }
    ~ScopedOmpThreads() {
        if (previous_ > 0) omp_set_num_threads(previous_);
    }
    ScopedOmpThreads(const ScopedOmpThreads&) = delete;
    ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

private:
    int previous_;
};

// ----- checks --------------------------------------------------------------------------------

void requireFinite(std::span<const float> values, std::size_t dimension, const char* what) {
    const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    if (bad != values.end())
        throw Error(std::string("dense index: ") + what + " row " +
                    std::to_string(static_cast<std::size_t>(bad - values.begin()) / dimension) +
                    " holds a value that is not a finite number");
}

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
// reads p sqrt(n) fp16 vectors (32 x 2,828 at 8 M names) after comparing with sqrt(n) centroids.
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

// ----- results -------------------------------------------------------------------------------

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

struct DenseIndex::State {
    DenseIndexKind kind = DenseIndexKind::Flat;
    std::size_t dimension = 0;
    std::string fingerprint;
    unsigned threads = 0;
    std::unique_ptr<faiss::Index> index;

    std::size_t size() const noexcept { return index ? static_cast<std::size_t>(index->ntotal) : 0; }

    void applySearchOptions(const DenseIndexOptions& options) {
        threads = options.threads;
        if (auto* hnsw = dynamic_cast<faiss::IndexHNSW*>(index.get()))
            hnsw->hnsw.efSearch = static_cast<int>(std::max<std::size_t>(1, options.hnswEfSearch));
        if (auto* ivf = dynamic_cast<faiss::IndexIVF*>(index.get()))
            ivf->nprobe = std::clamp<std::size_t>(options.ivfProbes, 1, ivf->nlist);
    }

    // FAISS's k best of `rows` queries starting at `first`, as asked (k <= size()).
    void faissSearch(const float* queries, std::size_t rows, std::size_t k, std::vector<float>& scores,
                     std::vector<FaissId>& labels) const {
        scores.assign(rows * k, 0.0f);
        labels.assign(rows * k, -1);
        index->search(static_cast<FaissId>(rows), queries, static_cast<FaissId>(k), scores.data(), labels.data());
    }
};

DenseIndex::DenseIndex() = default;
DenseIndex::DenseIndex(DenseIndex&&) noexcept = default;
DenseIndex& DenseIndex::operator=(DenseIndex&&) noexcept = default;
DenseIndex::~DenseIndex() = default;

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

// ----- validation of what FAISS read --------------------------------------------------------
//
// The checksum proves the file is what was written, not that it was written by us: a crafted
// file with a resealed CRC reaches faiss::read_index, which checks little of the structure it
// builds, and FAISS's search then follows neighbour ids and list sizes without bounds checks.
// Every array the three kinds' searches index is checked against the sizes it must have.
namespace {

/// Why a flat (exact) storage of `d` dimensions is not whole, or "" when it is.
std::string flatProblem(const faiss::Index* index, std::uint64_t d) {
    const auto* flat = dynamic_cast<const faiss::IndexFlatCodes*>(index);
    if (!flat) return "its vectors are not stored as a flat table";
    if (static_cast<std::uint64_t>(flat->d) != d || flat->code_size != d * sizeof(float))
        return "its flat table has vectors of " + std::to_string(flat->d) + " dimensions in codes of " +
               std::to_string(flat->code_size) + " bytes";
    if (flat->ntotal < 0 || flat->codes.size() != static_cast<std::size_t>(flat->ntotal) * flat->code_size)
        return "its flat table holds " + std::to_string(flat->codes.size()) + " bytes for " +
               std::to_string(flat->ntotal) + " vectors";
    return {};
}

std::string hnswProblem(const faiss::IndexHNSW& index, std::uint64_t d) {
    if (!index.storage) return "the graph has no vector storage";
    if (const auto problem = flatProblem(index.storage, d); !problem.empty()) return problem;
    if (index.storage->ntotal != index.ntotal) return "the graph and its storage hold different numbers of vectors";
    const faiss::HNSW& graph = index.hnsw;
    const auto n = static_cast<std::size_t>(index.ntotal);
    if (graph.levels.size() != n || graph.offsets.size() != n + 1)
        return "the graph's level tables do not match its size";
    if (graph.cum_nneighbor_per_level.empty() || graph.offsets.front() != 0)
        return "the graph's neighbour tables are damaged";
    const int levels = static_cast<int>(graph.cum_nneighbor_per_level.size()) - 1;
    for (std::size_t i = 0; i < n; ++i) {
        // A node's neighbour lists span cum_nneighbor_per_level[level] slots from offsets[i].
        if (graph.levels[i] < 1 || graph.levels[i] > levels || graph.levels[i] > graph.max_level + 1)
            return "node " + std::to_string(i) + " has level " + std::to_string(graph.levels[i]);
        const auto span =
            static_cast<std::size_t>(graph.cum_nneighbor_per_level[static_cast<std::size_t>(graph.levels[i])]);
        if (graph.offsets[i + 1] < graph.offsets[i] || graph.offsets[i + 1] - graph.offsets[i] != span)
            return "node " + std::to_string(i) + "'s neighbour list has the wrong length";
    }
    if (graph.offsets.back() != graph.neighbors.size()) return "the graph's neighbour table has the wrong size";
    for (const auto neighbour : graph.neighbors)
        if (neighbour < -1 || neighbour >= index.ntotal)
            return "a neighbour id (" + std::to_string(neighbour) + ") is outside the " + std::to_string(n) +
                   " vectors";
    for (std::size_t level = 1; level < graph.cum_nneighbor_per_level.size(); ++level)
        if (graph.cum_nneighbor_per_level[level] < graph.cum_nneighbor_per_level[level - 1])
            return "the graph's neighbour counts per level decrease";
    if (n > 0 &&
        (graph.entry_point < 0 || graph.entry_point >= index.ntotal || graph.max_level < 0 ||
         graph.max_level >= levels || graph.levels[static_cast<std::size_t>(graph.entry_point)] != graph.max_level + 1))
        return "the graph's entry point is not a node of its top level";
    return {};
}

std::string ivfPqProblem(const faiss::IndexIVFPQ& index, std::uint64_t d) {
    if (!index.quantizer || static_cast<std::size_t>(index.quantizer->ntotal) != index.nlist ||
        static_cast<std::uint64_t>(index.quantizer->d) != d)
        return "the coarse quantizer does not hold one centroid per list";
    if (const auto problem = flatProblem(index.quantizer, d); !problem.empty()) return "coarse quantizer: " + problem;
    const faiss::ProductQuantizer& pq = index.pq;
    if (pq.M == 0 || pq.dsub == 0 || pq.M * pq.dsub != d || pq.ksub != (std::size_t{1} << pq.nbits) ||
        pq.centroids.size() != pq.M * pq.ksub * pq.dsub || pq.code_size != index.code_size)
        return "the product quantizer's tables do not match its sizes";
    const auto* lists = dynamic_cast<const faiss::ArrayInvertedLists*>(index.invlists);
    if (!lists || lists->nlist != index.nlist || lists->code_size != index.code_size ||
        lists->codes.size() != index.nlist || lists->ids.size() != index.nlist)
        return "the inverted lists do not match the index";
    std::size_t total = 0;
    for (std::size_t list = 0; list < index.nlist; ++list) {
        if (lists->codes[list].size() != lists->ids[list].size() * index.code_size)
            return "inverted list " + std::to_string(list) + " holds codes and ids of different counts";
        for (const auto id : lists->ids[list])
            if (id < 0 || id >= index.ntotal)
                return "inverted list " + std::to_string(list) + " names vector " + std::to_string(id);
        total += lists->ids[list].size();
    }
    if (total != static_cast<std::size_t>(index.ntotal)) return "the inverted lists hold another number of vectors";
    return {};
}

/// Why the FAISS index read from a file cannot be searched safely, or "" when it can.
std::string structureProblem(const faiss::Index* index, DenseIndexKind kind, std::uint64_t d) {
    if (kind == DenseIndexKind::Flat) return flatProblem(index, d);
    if (kind == DenseIndexKind::Hnsw) return hnswProblem(*dynamic_cast<const faiss::IndexHNSW*>(index), d);
    return ivfPqProblem(*dynamic_cast<const faiss::IndexIVFPQ*>(index), d);
}

}  // namespace

// ----- file format ---------------------------------------------------------------------------
//
// Version 1, little-endian, no padding:
//   magic "LSDENSE1" (8), u32 version, u8 kind (0 flat, 1 hnsw, 2 ivf-pq), u64 dimension,
//   u64 count, u64 fingerprint bytes F, F bytes of fingerprint,
//   the index as faiss::write_index writes it,
//   u64 byte count of that FAISS payload, u32 CRC-32 (zlib) of every byte before it.
// The checksum is verified before FAISS parses anything: a damaged size field inside FAISS's
// own format would otherwise make it allocate whatever the damage says.
namespace {

constexpr std::string_view kMagic = "LSDENSE1";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeaderBytes = 8 + 4 + 1 + 8 + 8 + 8;
constexpr std::size_t kTrailerBytes = 8 + 4;
constexpr std::uint64_t kMaxFingerprintBytes = 1 << 20;

template <typename T>
void appendScalar(std::string& out, T value) {
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
    out.append(reinterpret_cast<const char*>(raw), sizeof(T));
}

// FAISS's serializer writing straight into the atomic file, counting and checksumming as it
// goes, so that a 3 GB index is not first copied into memory.
class StreamWriter final : public faiss::IOWriter {
public:
    explicit StreamWriter(std::ostream& out) : out_(out) {}

    std::size_t operator()(const void* data, std::size_t size, std::size_t items) override {
        put(data, size * items);
        return out_.good() ? items : 0;
    }
    void put(const void* data, std::size_t bytes) { out_.bytes(data, bytes); }
    std::uint32_t checksum() const noexcept { return out_.checksum(); }
    std::uint64_t written() const noexcept { return out_.written(); }

private:
    ChecksummedWriter out_;
};

// FAISS's deserializer reading the payload of the file and no further: a read past the
// payload's end is short, which FAISS reports as a read error.
class BoundedReader final : public faiss::IOReader {
public:
    BoundedReader(std::istream& in, std::uint64_t limit) : in_(in), left_(limit) {}

    std::size_t operator()(void* data, std::size_t size, std::size_t items) override {
        if (size == 0 || items == 0) return 0;
        const std::uint64_t whole = std::min<std::uint64_t>(items, left_ / size);
        in_.read(static_cast<char*>(data), static_cast<std::streamsize>(whole * size));
        const auto got = static_cast<std::uint64_t>(in_.gcount());
        left_ -= got;
        return static_cast<std::size_t>(got / size);
    }
    std::uint64_t left() const noexcept { return left_; }

private:
    std::istream& in_;
    std::uint64_t left_;
};

struct FileHeader {
    DenseIndexKind kind = DenseIndexKind::Flat;
    std::uint64_t dimension = 0;
    std::uint64_t count = 0;
    std::string fingerprint;
    std::uint64_t headerBytes = 0;
};

}  // namespace

void DenseIndex::save(const std::filesystem::path& file) const {
    if (!state_) throw Error("dense index: nothing to save: the index was not built or loaded");
    if (state_->kind == DenseIndexKind::IvfFp16)
        throw Error("dense index: an IVF-fp16 index is rebuilt, not saved to " + file.string() +
                    " (loading checks each FAISS layout it reads, and this one is not among them yet)");
    std::string header(kMagic);
    appendScalar<std::uint32_t>(header, kVersion);
    appendScalar<std::uint8_t>(header, static_cast<std::uint8_t>(state_->kind));
    appendScalar<std::uint64_t>(header, state_->dimension);
    appendScalar<std::uint64_t>(header, state_->size());
    appendScalar<std::uint64_t>(header, state_->fingerprint.size());
    header += state_->fingerprint;

    AtomicFileWriter writer(file);
    StreamWriter out(writer.stream());
    out.put(header.data(), header.size());
    try {
        faiss::write_index(state_->index.get(), &out);
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: cannot write " + file.string() + ": " + e.what());
    }
    std::string trailer;
    appendScalar<std::uint64_t>(trailer, out.written() - header.size());
    out.put(trailer.data(), trailer.size());
    std::string checksum;
    appendScalar<std::uint32_t>(checksum, out.checksum());
    writer.stream().write(checksum.data(), static_cast<std::streamsize>(checksum.size()));
    if (!writer.stream()) throw Error("dense index: cannot write " + file.string());
    writer.commit();
}

DenseIndex DenseIndex::load(const std::filesystem::path& file, const std::string& expectedFingerprint) {
    const std::string name = file.string();
    const auto fail = [&name](const std::string& message) -> ParseError { return ParseError(name, 0, message); };
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) throw fail("cannot open the dense index file: it is a folder");
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) throw fail("cannot open the dense index file");
    const auto end = static_cast<std::streamoff>(in.tellg());
    if (end < 0) throw fail("cannot read the dense index file");
    const auto fileBytes = static_cast<std::uint64_t>(end);

    // The fixed header, then the fingerprint it announces.
    FileHeader header;
    char fixed[kFixedHeaderBytes];
    in.seekg(0);
    if (fileBytes < kMagic.size() || !in.read(fixed, kMagic.size()) || std::string_view(fixed, kMagic.size()) != kMagic)
        throw fail("not a Linkscope dense index (the file does not start with \"LSDENSE1\")");
    if (fileBytes < kFixedHeaderBytes + kTrailerBytes ||
        !in.read(fixed + kMagic.size(), kFixedHeaderBytes - kMagic.size()))
        throw fail("truncated dense index: the file ends inside its header (" + std::to_string(fileBytes) + " bytes)");
    const auto version = readLittleEndian<std::uint32_t>(fixed + 8);
    if (version != kVersion)
        throw fail("dense index format version " + std::to_string(version) + " is not supported (this build reads " +
                   std::to_string(kVersion) + ")");
    const auto kindCode = readLittleEndian<std::uint8_t>(fixed + 12);
    if (kindCode > static_cast<std::uint8_t>(DenseIndexKind::IvfPq))
        throw fail("corrupt dense index: unknown index kind " + std::to_string(kindCode));
    header.kind = static_cast<DenseIndexKind>(kindCode);
    header.dimension = readLittleEndian<std::uint64_t>(fixed + 13);
    header.count = readLittleEndian<std::uint64_t>(fixed + 21);
    const auto fingerprintBytes = readLittleEndian<std::uint64_t>(fixed + 29);
    if (fingerprintBytes > kMaxFingerprintBytes || fingerprintBytes > fileBytes - kFixedHeaderBytes - kTrailerBytes)
        throw fail("corrupt or truncated dense index: a fingerprint of " + std::to_string(fingerprintBytes) +
                   " bytes does not fit in the file");
    header.fingerprint.resize(static_cast<std::size_t>(fingerprintBytes));
    if (!in.read(header.fingerprint.data(), static_cast<std::streamsize>(fingerprintBytes)))
        throw fail("cannot read the dense index file");
    header.headerBytes = kFixedHeaderBytes + fingerprintBytes;

    // The trailer: the payload's size must account for every byte, and the checksum for each.
    const std::uint64_t payloadBytes = fileBytes - header.headerBytes - kTrailerBytes;
    char trailer[kTrailerBytes];
    in.seekg(static_cast<std::streamoff>(fileBytes - kTrailerBytes));
    if (!in.read(trailer, kTrailerBytes)) throw fail("cannot read the dense index file");
    const auto recordedPayload = readLittleEndian<std::uint64_t>(trailer);
    if (recordedPayload != payloadBytes)
        throw fail("truncated or damaged dense index: it records " + std::to_string(recordedPayload) +
                   " bytes of FAISS index but holds " + std::to_string(payloadBytes));
    if (streamChecksum(in, fileBytes - 4, name, "dense index") != readLittleEndian<std::uint32_t>(trailer + 8))
        throw fail("damaged dense index: the checksum does not match its content");
    if (header.dimension == 0) throw fail("corrupt dense index: dimension 0");

    if (!expectedFingerprint.empty() && header.fingerprint != expectedFingerprint)
        throw Error(name + ": the dense index was built for " +
                    (header.fingerprint.empty() ? std::string("an unknown model and dictionary")
                                                : "\"" + header.fingerprint + "\"") +
                    ", not for \"" + expectedFingerprint +
                    "\" (the model or the dictionary changed): rebuild the index with `linkscope-cli index`");

    // Walked first: FAISS sizes its vectors by what the payload declares before reading them.
    in.clear();
    in.seekg(static_cast<std::streamoff>(header.headerBytes));
    if (const auto problem = faissPayloadProblem(in, payloadBytes, header.kind, header.dimension))
        throw fail("damaged dense index: the FAISS payload is not the " + kindLabel(header.kind) +
                   " index this file's header names: " + *problem);

    auto state = std::make_unique<State>();
    state->kind = header.kind;
    state->dimension = static_cast<std::size_t>(header.dimension);
    state->fingerprint = std::move(header.fingerprint);
    in.clear();
    in.seekg(static_cast<std::streamoff>(header.headerBytes));
    BoundedReader reader(in, payloadBytes);
    reader.name = name;
    try {
        state->index.reset(faiss::read_index(&reader));
    } catch (const faiss::FaissException& e) {
        throw fail(std::string("damaged dense index: FAISS cannot read it: ") + e.what());
    } catch (const std::bad_alloc&) {
        // A size field inside FAISS's payload asked for more memory than there is.
        throw fail("damaged dense index: FAISS's payload declares sizes beyond the memory of this machine");
    } catch (const std::exception& e) {
        throw fail(std::string("damaged dense index: FAISS cannot read it: ") + e.what());
    }
    if (reader.left() != 0)
        throw fail("damaged dense index: " + std::to_string(reader.left()) + " bytes follow the FAISS index");
    const faiss::Index* index = state->index.get();
    const bool kindMatches = (header.kind == DenseIndexKind::Flat && dynamic_cast<const faiss::IndexFlatIP*>(index)) ||
                             (header.kind == DenseIndexKind::Hnsw && dynamic_cast<const faiss::IndexHNSW*>(index)) ||
                             (header.kind == DenseIndexKind::IvfPq && dynamic_cast<const faiss::IndexIVFPQ*>(index));
    if (!kindMatches || index->metric_type != faiss::METRIC_INNER_PRODUCT)
        throw fail("damaged dense index: the FAISS index is not the " + kindLabel(header.kind) +
                   " inner-product index its header names");
    if (static_cast<std::uint64_t>(index->d) != header.dimension ||
        static_cast<std::uint64_t>(index->ntotal) != header.count)
        throw fail("damaged dense index: the FAISS index holds " + std::to_string(index->ntotal) + " vectors of " +
                   std::to_string(index->d) + " dimensions, the header " + std::to_string(header.count) + " of " +
                   std::to_string(header.dimension));
    if (const auto problem = structureProblem(index, header.kind, header.dimension); !problem.empty())
        throw fail("damaged dense index: " + problem);
    // Search knobs are not part of the file's promise: the defaults apply until
    // setSearchOptions(), whatever FAISS stored.
    state->applySearchOptions(DenseIndexOptions{});
    DenseIndex result;
    result.state_ = std::move(state);
    return result;
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
