// kNN-BioEL's datastore (issue 6): unit key vectors in one row-major array, exact cosine search
// with a deterministic top-k, per-entity concept vectors, and the checksummed file format.
#include "retrieval/knn_datastore.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>

#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"
#include "util/inner_products.h"

namespace linkscope::retrieval {
namespace {

// ----- vectors -------------------------------------------------------------------------------

enum class VectorProblem { None, NotFinite, Zero };

// Writes row / |row| to `out` (norm taken in double, so that neither huge nor tiny finite
// values overflow or underflow on the way). On a problem `out` is left unspecified.
VectorProblem normalizeInto(const float* row, std::size_t dimension, float* out) noexcept {
    double squares = 0.0;
    for (std::size_t i = 0; i < dimension; ++i) {
        if (!std::isfinite(row[i])) return VectorProblem::NotFinite;
        squares += static_cast<double>(row[i]) * static_cast<double>(row[i]);
    }
    if (!(squares > 0.0)) return VectorProblem::Zero;
    const double scale = 1.0 / std::sqrt(squares);
    for (std::size_t i = 0; i < dimension; ++i) out[i] = static_cast<float>(static_cast<double>(row[i]) * scale);
    return VectorProblem::None;
}

// Normalized copies of `count` rows, or Error naming the first bad row.
std::vector<float> normalizedRows(std::span<const float> rows, std::size_t dimension, const char* what) {
    std::vector<float> out(rows.size());
    for (std::size_t first = 0; first < rows.size(); first += dimension) {
        const VectorProblem problem = normalizeInto(rows.data() + first, dimension, out.data() + first);
        if (problem == VectorProblem::None) continue;
        throw Error(std::string("kNN datastore: ") + what + " " + std::to_string(first / dimension) +
                    (problem == VectorProblem::Zero ? " is the zero vector (it has no direction to compare by cosine)"
                                                    : " holds a value that is not a finite number"));
    }
    return out;
}

// The inner product with sixteen independent partial sums. Debian's FAISS (1.7.3, built for
// generic x86-64) implements faiss::fvec_inner_products_ny with its scalar reference loop, one
// dependent addition per element; these lanes need no reassociation, so the compiler turns
// them into SIMD instructions on any target, and the additions do not wait on each other
// (benchmarks/knn_datastore measures both: docs/benchmarks.md, "kNN datastore").
constexpr std::size_t kLanes = 16;

float dot(const float* a, const float* b, std::size_t dimension) noexcept {
    float lanes[kLanes] = {};
    std::size_t i = 0;
    for (; i + kLanes <= dimension; i += kLanes)
    // Unrolled, the lanes stay in registers at -O2 too (RelWithDebInfo): 2.4 times faster
    // on cache-resident rows than GCC 12's -O2 code without it, the same as -O3's.
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
// inline for the heaps of search()).
bool ranksBefore(const DatastoreNeighbor& a, const DatastoreNeighbor& b) noexcept {
    return a.similarity > b.similarity || (a.similarity == b.similarity && a.key < b.key);
}

// The k best neighbours offered so far, as a heap whose front is the worst of them.
class NeighborHeap {
public:
    explicit NeighborHeap(std::size_t k) : k_(k) { heap_.reserve(k); }

    void offer(const DatastoreNeighbor& candidate) {
        if (heap_.size() < k_) {
            heap_.push_back(candidate);
            std::push_heap(heap_.begin(), heap_.end(), ranksBefore);
        } else if (ranksBefore(candidate, heap_.front())) {
            std::pop_heap(heap_.begin(), heap_.end(), ranksBefore);
            heap_.back() = candidate;
            std::push_heap(heap_.begin(), heap_.end(), ranksBefore);
        }
    }
    /// Below this a candidate cannot enter (-infinity until the heap is full).
    float floor() const noexcept {
        if (heap_.size() < k_) return -std::numeric_limits<float>::infinity();
        return k_ == 0 ? std::numeric_limits<float>::infinity() : heap_.front().similarity;
    }
    std::vector<DatastoreNeighbor> sorted() && {
        std::sort_heap(heap_.begin(), heap_.end(), ranksBefore);
        return std::move(heap_);
    }

private:
    std::size_t k_;
    std::vector<DatastoreNeighbor> heap_;
};

// Room for `extra` more elements, growing geometrically: reserve(size() + extra) would give
// exactly that, and one add at a time would then copy the whole array every time.
template <typename T>
void growFor(std::vector<T>& values, std::size_t extra) {
    const std::size_t needed = values.size() + extra;
    if (needed > values.capacity()) values.reserve(std::max(needed, 2 * values.capacity()));
}

// Rows scored per block: a block's scores stay in L1 and, for a batch of queries, its vectors
// in L2 while every query passes over them.
constexpr std::size_t kBlockFloats = 1 << 16;

// From this many queries on, search() scores by matrix products (util/inner_products.h); below
// it, a product's fixed cost outweighs what it saves. Blocks of 256 queries x 4,096 keys: 4 MB of
// scores, and LibTorch's product is already at full speed at that size.
constexpr std::size_t kProductMinQueries = 8;
constexpr std::size_t kProductQueries = 256;
constexpr std::size_t kProductKeyRows = 4096;

}  // namespace

bool neighborRanksBefore(const DatastoreNeighbor& a, const DatastoreNeighbor& b) noexcept { return ranksBefore(a, b); }

std::optional<std::size_t> mergeNeighbor(std::span<DatastoreNeighbor> nearest, std::size_t& count,
                                         const DatastoreNeighbor& candidate) noexcept {
    const std::size_t k = nearest.size();
    if (count > k) count = k;
    if (k == 0 || (count == k && !ranksBefore(candidate, nearest[k - 1]))) return std::nullopt;
    // Its place among the first `count`, which shift down by one (the k-th falls off a full list).
    const auto place =
        std::upper_bound(nearest.begin(), nearest.begin() + static_cast<std::ptrdiff_t>(count), candidate, ranksBefore);
    const auto last = nearest.begin() + static_cast<std::ptrdiff_t>(count < k ? count + 1 : k);
    std::move_backward(place, last - 1, last);
    *place = candidate;
    if (count < k) ++count;
    return static_cast<std::size_t>(place - nearest.begin());
}

std::string_view keyOriginName(KeyOrigin origin) noexcept {
    switch (origin) {
        case KeyOrigin::Training:
            return "training";
        case KeyOrigin::Accepted:
            return "accepted";
        case KeyOrigin::Corrected:
            return "corrected";
    }
    return "unknown";
}

// ----- the store -----------------------------------------------------------------------------

KnnDatastore::KnnDatastore(std::size_t dimension, std::string encoderFingerprint)
    : dimension_(dimension), fingerprint_(std::move(encoderFingerprint)) {
    if (dimension == 0) throw Error("kNN datastore: the dimension must be positive");
}

std::uint32_t KnnDatastore::internEntity(std::string_view id) {
    if (const auto found = entityIndex_.find(id); found != entityIndex_.end()) return found->second;
    const auto index = static_cast<std::uint32_t>(entities_.size());
    entities_.emplace_back(id);
    entityKeyCounts_.push_back(0);
    entityIndex_.emplace(entities_.back(), index);
    return index;
}

void KnnDatastore::append(const float* normalized, std::uint32_t entity, KeyOrigin origin, std::string_view source,
                          std::uint64_t id) {
    vectors_.insert(vectors_.end(), normalized, normalized + dimension_);
    keyIds_.push_back(id);
    keyEntities_.push_back(entity);
    keyOrigins_.push_back(origin);
    keySources_.emplace_back(source);
    rowOfKey_.emplace(id, keyIds_.size() - 1);
    ++entityKeyCounts_[entity];
}

void KnnDatastore::reserve(std::size_t keys) {
    if (keys <= keyIds_.size()) return;
    vectors_.reserve(keys * dimension_);
    keyIds_.reserve(keys);
    keyEntities_.reserve(keys);
    keyOrigins_.reserve(keys);
    keySources_.reserve(keys);
    rowOfKey_.reserve(keys);
}

std::uint64_t KnnDatastore::add(std::span<const float> vector, std::string_view entity, KeyOrigin origin,
                                std::string_view source) {
    if (vector.size() != dimension_)
        throw Error("kNN datastore: a key of " + std::to_string(vector.size()) +
                    " values, the datastore's dimension is " + std::to_string(dimension_));
    const std::string entityId(entity);
    const std::string sourceText(source);
    return addBatch(vector, std::span(&entityId, 1), origin, std::span(&sourceText, 1)).front();
}

std::vector<std::uint64_t> KnnDatastore::addBatch(std::span<const float> vectors, std::span<const std::string> entities,
                                                  KeyOrigin origin, std::span<const std::string> sources) {
    const std::size_t count = entities.size();
    if (vectors.size() / dimension_ != count || vectors.size() % dimension_ != 0)
        throw Error("kNN datastore: " + std::to_string(vectors.size()) + " values are not " + std::to_string(count) +
                    " rows of dimension " + std::to_string(dimension_));
    if (!sources.empty() && sources.size() != count)
        throw Error("kNN datastore: " + std::to_string(sources.size()) + " sources for " + std::to_string(count) +
                    " keys");
    if (static_cast<std::uint8_t>(origin) > static_cast<std::uint8_t>(KeyOrigin::Corrected))
        throw Error("kNN datastore: unknown key origin " + std::to_string(static_cast<unsigned>(origin)));
    // Everything is checked before anything changes, so a bad row leaves the store as it was.
    std::size_t newEntities = 0;
    for (std::size_t row = 0; row < count; ++row) {
        if (entities[row].empty()) throw Error("kNN datastore: key " + std::to_string(row) + " has an empty entity id");
        if (!entityIndex_.contains(std::string_view(entities[row]))) ++newEntities;
    }
    if (newEntities > std::numeric_limits<std::uint32_t>::max() - entities_.size())
        throw Error("kNN datastore: more entities than a 32-bit entity index can name");
    const std::vector<float> normalized = normalizedRows(vectors, dimension_, "key");

    growFor(vectors_, vectors.size());
    growFor(keyIds_, count);
    growFor(keyEntities_, count);
    growFor(keyOrigins_, count);
    growFor(keySources_, count);
    // A batch larger than the store sizes the table once; smaller ones let it grow as it does.
    if (count > rowOfKey_.size()) rowOfKey_.reserve(rowOfKey_.size() + count);
    std::vector<std::uint64_t> ids;
    ids.reserve(count);
    for (std::size_t row = 0; row < count; ++row) {
        const std::uint32_t entity = internEntity(entities[row]);
        const std::uint64_t id = nextKeyId_++;
        append(normalized.data() + row * dimension_, entity, origin,
               sources.empty() ? std::string_view{} : std::string_view(sources[row]), id);
        ids.push_back(id);
    }
    return ids;
}

bool KnnDatastore::remove(std::uint64_t key) {
    const auto found = rowOfKey_.find(key);
    if (found == rowOfKey_.end()) return false;
    const std::size_t row = found->second;
    const std::size_t last = keyIds_.size() - 1;
    --entityKeyCounts_[keyEntities_[row]];
    rowOfKey_.erase(found);
    if (row != last) {  // the last row fills the hole
        std::copy_n(vectors_.begin() + static_cast<std::ptrdiff_t>(last * dimension_), dimension_,
                    vectors_.begin() + static_cast<std::ptrdiff_t>(row * dimension_));
        keyIds_[row] = keyIds_[last];
        keyEntities_[row] = keyEntities_[last];
        keyOrigins_[row] = keyOrigins_[last];
        keySources_[row] = std::move(keySources_[last]);
        rowOfKey_[keyIds_[row]] = row;
    }
    vectors_.resize(last * dimension_);
    keyIds_.pop_back();
    keyEntities_.pop_back();
    keyOrigins_.pop_back();
    keySources_.pop_back();
    return true;
}

bool KnnDatastore::contains(std::uint64_t key) const noexcept { return rowOfKey_.contains(key); }

std::optional<DatastoreKeyInfo> KnnDatastore::info(std::uint64_t key) const {
    const auto found = rowOfKey_.find(key);
    if (found == rowOfKey_.end()) return std::nullopt;
    const std::size_t row = found->second;
    return DatastoreKeyInfo{key, keyEntities_[row], keyOrigins_[row], keySources_[row]};
}

std::optional<std::uint32_t> KnnDatastore::findEntity(std::string_view id) const {
    const auto found = entityIndex_.find(id);
    if (found == entityIndex_.end()) return std::nullopt;
    return found->second;
}

std::size_t KnnDatastore::keyCount(std::uint32_t entity) const noexcept {
    return entity < entityKeyCounts_.size() ? entityKeyCounts_[entity] : 0;
}

std::vector<DatastoreKeyInfo> KnnDatastore::keys() const {
    std::vector<DatastoreKeyInfo> out;
    out.reserve(keyIds_.size());
    for (std::size_t row = 0; row < keyIds_.size(); ++row)
        out.push_back({keyIds_[row], keyEntities_[row], keyOrigins_[row], keySources_[row]});
    return out;
}

std::vector<std::vector<DatastoreNeighbor>> KnnDatastore::search(std::span<const float> queries, std::size_t k) const {
    if (queries.size() % dimension_ != 0)
        throw Error("kNN datastore: " + std::to_string(queries.size()) +
                    " query values are not whole rows of dimension " + std::to_string(dimension_));
    const std::size_t queryCount = queries.size() / dimension_;
    const std::vector<float> normalized = normalizedRows(queries, dimension_, "query");
    const std::size_t rows = keyIds_.size();
    const std::size_t keep = std::min(k, rows);
    std::vector<NeighborHeap> heaps(queryCount, NeighborHeap(keep));
    // Offers one row to a query's heap, scored by dot(): both paths below end here, so they
    // give the same neighbours with the same similarities.
    const auto offer = [&](NeighborHeap& heap, const float* query, std::size_t row) {
        // Rounding can take a cosine a hair past ±1; clamped before ranking so that the order
        // agrees with the similarities reported.
        const float similarity = std::clamp(dot(query, vectors_.data() + row * dimension_, dimension_), -1.0f, 1.0f);
        if (similarity < heap.floor()) return;  // the common case, decided cheaply
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
                    NeighborHeap& heap = heaps[firstQuery + q];
                    const float* query = blockVectors.data() + q * dimension_;
                    const float* score = blockScores.data() + q * blockRows;
                    for (std::size_t r = 0; r < blockRows; ++r) {
                        if (std::clamp(score[r] + slack, -1.0f, 1.0f) < heap.floor()) continue;
                        offer(heap, query, firstRow + r);
                    }
                }
            }
        }
    }
    std::vector<std::vector<DatastoreNeighbor>> results;
    results.reserve(queryCount);
    for (auto& heap : heaps) results.push_back(std::move(heap).sorted());
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

KnnDatastore::ConceptVectors KnnDatastore::conceptVectors() const {
    // Rows grouped by entity and, within one, by key id: the sums then see their terms in an
    // order that does not depend on where removals moved rows.
    std::vector<std::size_t> order(keyIds_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
        return keyEntities_[a] != keyEntities_[b] ? keyEntities_[a] < keyEntities_[b] : keyIds_[a] < keyIds_[b];
    });
    ConceptVectors out;
    std::vector<double> sum(dimension_);
    for (std::size_t begin = 0; begin < order.size();) {
        const std::uint32_t entity = keyEntities_[order[begin]];
        std::fill(sum.begin(), sum.end(), 0.0);
        std::size_t end = begin;
        for (; end < order.size() && keyEntities_[order[end]] == entity; ++end) {
            const float* row = vectors_.data() + order[end] * dimension_;
            for (std::size_t i = 0; i < dimension_; ++i) sum[i] += row[i];
        }
        // The mean and the sum have the same direction: normalizing the sum is the mean normalized.
        double squares = 0.0;
        for (const double value : sum) squares += value * value;
        const double scale = squares > 0.0 ? 1.0 / std::sqrt(squares) : 0.0;
        out.entities.push_back(entity);
        for (const double value : sum) out.vectors.push_back(static_cast<float>(value * scale));
        begin = end;
    }
    return out;
}

// ----- file format ---------------------------------------------------------------------------
//
// Version 1. Scalars and arrays little-endian, no padding.
//   offset size
//        0    8  magic "LSKNNDS1"
//        8    4  u32 format version
//       12    8  u64 total file size in bytes, checksum included
//       20    8  u64 dimension D
//       28    8  u64 fingerprint bytes F
//       36    F  encoder fingerprint
//             8  u64 next key id
//             8  u64 entity count E
//             8  u64 entity text bytes B
//             B  entity ids, concatenated in index order
//           E*4  u32 end offset of each entity id in that text
//             8  u64 key count N
//             8  u64 source text bytes S
//           N*8  u64 key ids            (storage order)
//           N*4  u32 entity indexes
//           N*1  u8 origins (0 training, 1 accepted, 2 corrected)
//           N*8  u64 end offset of each key's source in the source text
//             S  source texts, concatenated
//       N*D*4  f32 unit key vectors, row-major
//             4  u32 CRC-32 (zlib) of every byte before it
// The size and the checksum are checked before any count in the body is trusted, and every
// count is checked against the bytes left before anything is allocated for it.
namespace {

constexpr std::string_view kMagic = "LSKNNDS1";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeaderBytes = 36;
constexpr std::size_t kChecksumBytes = 4;
// Far above any encoder's output; a larger value is damage, and bounds the row arithmetic.
constexpr std::uint64_t kMaxDimension = 1 << 20;
// A stored key deviates from unit length by float rounding only (~1e-7 relative).
constexpr double kUnitTolerance = 1e-3;

using Writer = ChecksummedWriter;  // little-endian scalars and arrays

// Reads the body of a file whose size and checksum were verified, never past `left` bytes.
class Reader {
public:
    Reader(std::istream& in, std::uint64_t left, const std::string& file) : in_(in), left_(left), file_(file) {}

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, 0, message); }
    std::uint64_t left() const noexcept { return left_; }

    template <typename T>
    T scalar(const char* what) {
        T value;
        read(&value, 1, what);
        return value;
    }
    template <typename T>
    std::vector<T> array(std::uint64_t count, const char* what) {
        checkFits(count, sizeof(T), what);  // before allocating: a damaged count asks for nothing
        std::vector<T> values(static_cast<std::size_t>(count));
        read(values.data(), values.size(), what);
        return values;
    }
    std::string text(std::uint64_t bytes, const char* what) {
        checkFits(bytes, 1, what);
        std::string value(static_cast<std::size_t>(bytes), '\0');
        readRaw(value.data(), value.size(), what);
        return value;
    }
    void checkFits(std::uint64_t count, std::uint64_t itemBytes, const char* what) const {
        if (count > left_ / itemBytes)
            fail("corrupt kNN datastore: " + std::string(what) + " (" + std::to_string(count) + " x " +
                 std::to_string(itemBytes) + " bytes) run past the end of the file, " + std::to_string(left_) +
                 " bytes before its checksum");
    }

private:
    template <typename T>
    void read(T* values, std::size_t count, const char* what) {
        static_assert(std::is_arithmetic_v<T>);
        checkFits(count, sizeof(T), what);
        readRaw(values, count * sizeof(T), what);
        if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1)
            for (std::size_t i = 0; i < count; ++i) {
                auto* raw = reinterpret_cast<unsigned char*>(values + i);
                std::reverse(raw, raw + sizeof(T));
            }
    }
    void readRaw(void* data, std::size_t bytes, const char* what) {
        if (bytes == 0) return;
        if (!in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes)))
            fail(std::string("cannot read the kNN datastore file (") + what + ")");
        left_ -= bytes;
    }

    std::istream& in_;
    std::uint64_t left_;
    const std::string& file_;
};

// Splits concatenated text at its end offsets; fails unless the offsets ascend and end at its end.
template <typename Offset>
std::vector<std::string> splitAtEnds(const std::string& text, const std::vector<Offset>& ends, const Reader& reader,
                                     const char* what) {
    std::vector<std::string> parts;
    parts.reserve(ends.size());
    std::uint64_t begin = 0;
    for (const Offset end : ends) {
        if (end < begin || end > text.size())
            reader.fail("corrupt kNN datastore: " + std::string(what) + " offsets out of order");
        parts.emplace_back(text, static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
        begin = end;
    }
    if (begin != text.size()) reader.fail("corrupt kNN datastore: " + std::string(what) + " text left over");
    return parts;
}

}  // namespace

void KnnDatastore::save(const std::filesystem::path& file) const {
    std::string entityText;
    std::vector<std::uint32_t> entityEnds;
    entityEnds.reserve(entities_.size());
    for (const auto& entity : entities_) {
        entityText += entity;
        if (entityText.size() > std::numeric_limits<std::uint32_t>::max())
            throw Error("kNN datastore: cannot save " + file.string() + ": over 4 GiB of entity ids");
        entityEnds.push_back(static_cast<std::uint32_t>(entityText.size()));
    }
    std::vector<std::uint64_t> sourceEnds;
    sourceEnds.reserve(keySources_.size());
    std::uint64_t sourceBytes = 0;
    for (const auto& source : keySources_) sourceEnds.push_back(sourceBytes += source.size());
    std::vector<std::uint8_t> origins(keyOrigins_.size());
    std::transform(keyOrigins_.begin(), keyOrigins_.end(), origins.begin(),
                   [](KeyOrigin origin) { return static_cast<std::uint8_t>(origin); });

    const std::uint64_t keys = keyIds_.size();
    const std::uint64_t fileBytes = kFixedHeaderBytes + fingerprint_.size() + 8 + 8 + 8 + entityText.size() +
                                    entities_.size() * 4 + 8 + 8 + keys * (8 + 4 + 1 + 8) + sourceBytes +
                                    vectors_.size() * 4 + kChecksumBytes;

    AtomicFileWriter output(file);
    Writer out(output.stream());
    out.text(kMagic);
    out.scalar(kVersion);
    out.scalar(fileBytes);
    out.scalar(std::uint64_t{dimension_});
    out.scalar(std::uint64_t{fingerprint_.size()});
    out.text(fingerprint_);
    out.scalar(nextKeyId_);
    out.scalar(std::uint64_t{entities_.size()});
    out.scalar(std::uint64_t{entityText.size()});
    out.text(entityText);
    out.array(std::span<const std::uint32_t>(entityEnds));
    out.scalar(keys);
    out.scalar(sourceBytes);
    out.array(std::span<const std::uint64_t>(keyIds_));
    out.array(std::span<const std::uint32_t>(keyEntities_));
    out.array(std::span<const std::uint8_t>(origins));
    out.array(std::span<const std::uint64_t>(sourceEnds));
    for (const auto& source : keySources_) out.text(source);
    out.array(std::span<const float>(vectors_));
    out.scalar(out.checksum());
    if (!out.good()) throw Error("kNN datastore: cannot write " + file.string());
    if (out.written() != fileBytes) throw Error(file.string() + ": internal error: kNN datastore size mismatch");
    output.commit();
}

KnnDatastore KnnDatastore::load(const std::filesystem::path& file, const std::string& expectedFingerprint) {
    const std::string name = file.string();
    const auto fail = [&name](const std::string& message) { return ParseError(name, 0, message); };
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) throw fail("cannot open the kNN datastore file: it is a folder");
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) throw fail("cannot open the kNN datastore file");
    const auto end = static_cast<std::streamoff>(in.tellg());
    if (end < 0) throw fail("cannot read the kNN datastore file");
    const auto fileBytes = static_cast<std::uint64_t>(end);
    if (fileBytes == 0) throw fail("empty file: not a Linkscope kNN datastore");

    // The header: the magic, then the size and the checksum vouch for everything after it.
    char fixed[kFixedHeaderBytes];
    const auto headBytes = static_cast<std::size_t>(std::min<std::uint64_t>(fileBytes, kFixedHeaderBytes));
    in.seekg(0);
    if (!in.read(fixed, static_cast<std::streamsize>(headBytes))) throw fail("cannot read the kNN datastore file");
    const std::string_view head(fixed, std::min(headBytes, kMagic.size()));
    if (head != kMagic.substr(0, head.size()))
        throw fail("not a Linkscope kNN datastore (the file does not start with \"LSKNNDS1\")");
    if (fileBytes < kFixedHeaderBytes + kChecksumBytes)
        throw fail("truncated kNN datastore: the file ends inside its header (" + std::to_string(fileBytes) +
                   " bytes)");
    const auto version = readLittleEndian<std::uint32_t>(fixed + 8);
    if (version != kVersion)
        throw fail("kNN datastore format version " + std::to_string(version) + " is not supported (this build reads " +
                   std::to_string(kVersion) + ")");
    const auto recordedBytes = readLittleEndian<std::uint64_t>(fixed + 12);
    if (recordedBytes > fileBytes)
        throw fail("truncated kNN datastore: " + std::to_string(fileBytes) + " bytes of the " +
                   std::to_string(recordedBytes) + " its header announces");
    if (recordedBytes < fileBytes)
        throw fail("corrupt kNN datastore: " + std::to_string(fileBytes - recordedBytes) +
                   " unexpected bytes after the end its header announces");
    char storedChecksum[kChecksumBytes];
    in.seekg(static_cast<std::streamoff>(fileBytes - kChecksumBytes));
    if (!in.read(storedChecksum, kChecksumBytes)) throw fail("cannot read the kNN datastore file");
    if (streamChecksum(in, fileBytes - kChecksumBytes, name, "kNN datastore") !=
        readLittleEndian<std::uint32_t>(storedChecksum))
        throw fail(
            "damaged kNN datastore: the checksum does not match its content (the file was modified or corrupted)");

    // The body, every count checked against the bytes left before it is used.
    in.clear();
    in.seekg(static_cast<std::streamoff>(20));
    Reader reader(in, fileBytes - 20 - kChecksumBytes, name);
    const auto dimension = reader.scalar<std::uint64_t>("dimension");
    if (dimension == 0 || dimension > kMaxDimension)
        reader.fail("corrupt kNN datastore: dimension " + std::to_string(dimension));
    const auto fingerprintBytes = reader.scalar<std::uint64_t>("fingerprint size");
    std::string fingerprint = reader.text(fingerprintBytes, "fingerprint");
    // The file is intact: was it made by the encoder the caller uses?
    if (!expectedFingerprint.empty() && fingerprint != expectedFingerprint)
        throw Error(name + ": the kNN datastore was built by encoder \"" + fingerprint +
                    "\", the active encoder is \"" + expectedFingerprint +
                    "\": rebuild it (its keys must be re-encoded by the active encoder)");

    KnnDatastore store(static_cast<std::size_t>(dimension), std::move(fingerprint));
    store.nextKeyId_ = reader.scalar<std::uint64_t>("next key id");
    const auto entityCount = reader.scalar<std::uint64_t>("entity count");
    if (entityCount > std::numeric_limits<std::uint32_t>::max())
        reader.fail("corrupt kNN datastore: entity count " + std::to_string(entityCount));
    const auto entityBytes = reader.scalar<std::uint64_t>("entity text size");
    const std::string entityText = reader.text(entityBytes, "entity ids");
    const auto entityEnds = reader.array<std::uint32_t>(entityCount, "entity offsets");
    const auto keyCount = reader.scalar<std::uint64_t>("key count");
    const auto sourceBytes = reader.scalar<std::uint64_t>("source text size");
    reader.checkFits(keyCount, 8 + 4 + 1 + 8, "keys");
    store.keyIds_ = reader.array<std::uint64_t>(keyCount, "key ids");
    store.keyEntities_ = reader.array<std::uint32_t>(keyCount, "key entities");
    const auto origins = reader.array<std::uint8_t>(keyCount, "key origins");
    const auto sourceEnds = reader.array<std::uint64_t>(keyCount, "source offsets");
    const std::string sourceText = reader.text(sourceBytes, "sources");
    reader.checkFits(keyCount, dimension * 4, "key vectors");
    store.vectors_ = reader.array<float>(keyCount * dimension, "key vectors");
    if (reader.left() != 0)
        reader.fail("corrupt kNN datastore: " + std::to_string(reader.left()) +
                    " bytes between the key vectors and the checksum (the sections do not add up to the file size)");

    // The content, checked as thoroughly as a freshly built store would be.
    store.entities_ = splitAtEnds(entityText, entityEnds, reader, "entity");
    store.entityKeyCounts_.assign(store.entities_.size(), 0);
    store.entityIndex_.reserve(store.entities_.size());
    for (std::uint32_t index = 0; index < store.entities_.size(); ++index) {
        const std::string& entity = store.entities_[index];
        if (entity.empty()) reader.fail("corrupt kNN datastore: entity " + std::to_string(index) + " has an empty id");
        if (!store.entityIndex_.emplace(entity, index).second)
            reader.fail("corrupt kNN datastore: entity \"" + entity + "\" is listed twice");
    }
    store.keySources_ = splitAtEnds(sourceText, sourceEnds, reader, "source");
    store.keyOrigins_.reserve(origins.size());
    store.rowOfKey_.reserve(static_cast<std::size_t>(keyCount));
    for (std::size_t row = 0; row < store.keyIds_.size(); ++row) {
        const std::uint64_t id = store.keyIds_[row];
        const std::string where = "key " + std::to_string(id) + " (row " + std::to_string(row) + ")";
        if (id == 0 || id >= store.nextKeyId_)
            reader.fail("corrupt kNN datastore: " + where + " is not below the next key id " +
                        std::to_string(store.nextKeyId_));
        if (!store.rowOfKey_.emplace(id, row).second)
            reader.fail("corrupt kNN datastore: " + where + " is listed twice");
        if (store.keyEntities_[row] >= store.entities_.size())
            reader.fail("corrupt kNN datastore: " + where + " names entity " + std::to_string(store.keyEntities_[row]) +
                        " of " + std::to_string(store.entities_.size()));
        ++store.entityKeyCounts_[store.keyEntities_[row]];
        if (origins[row] > static_cast<std::uint8_t>(KeyOrigin::Corrected))
            reader.fail("corrupt kNN datastore: " + where + " has the unknown origin " + std::to_string(origins[row]));
        store.keyOrigins_.push_back(static_cast<KeyOrigin>(origins[row]));
        double squares = 0.0;
        const float* vector = store.vectors_.data() + row * store.dimension_;
        for (std::size_t i = 0; i < store.dimension_; ++i) {
            if (!std::isfinite(vector[i]))
                reader.fail("corrupt kNN datastore: the vector of " + where + " holds a value that is not finite");
            squares += static_cast<double>(vector[i]) * static_cast<double>(vector[i]);
        }
        if (std::abs(squares - 1.0) > kUnitTolerance)
            reader.fail("corrupt kNN datastore: the vector of " + where + " is not of unit length");
    }
    return store;
}

}  // namespace linkscope::retrieval
