// kNN-BioEL's datastore: unit key vectors in one row-major array, keys added and removed, and
// per-entity concept vectors. Its search is in knn_datastore_search.cpp, its file format in
// knn_datastore_io.cpp.
#include "retrieval/knn_datastore.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "retrieval/knn_datastore_internal.h"
#include "util/error.h"

namespace linkscope::retrieval {
namespace {

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

}  // namespace

namespace detail {

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

}  // namespace detail

namespace {

// Room for `extra` more elements, growing geometrically: reserve(size() + extra) would give
// exactly that, and one add at a time would then copy the whole array every time.
template <typename T>
void growFor(std::vector<T>& values, std::size_t extra) {
    const std::size_t needed = values.size() + extra;
    if (needed > values.capacity()) values.reserve(std::max(needed, 2 * values.capacity()));
}

}  // namespace

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
    const std::vector<float> normalized = detail::normalizedRows(vectors, dimension_, "key");

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

}  // namespace linkscope::retrieval
