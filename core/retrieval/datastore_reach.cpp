#include "retrieval/datastore_reach.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "retrieval/knn_datastore.h"
#include "util/error.h"

namespace linkscope::retrieval {

DatastoreReach::DatastoreReach(const KnnDatastore& datastore, std::span<const float> targets, std::size_t k)
    : datastore_(&datastore), dimension_(datastore.dimension()), k_(k), count_(0) {
    if (k_ == 0) throw Error("datastore reach: k must be positive");
    if (targets.size() % dimension_ != 0)
        throw Error("datastore reach: " + std::to_string(targets.size()) + " values are not rows of " +
                    std::to_string(dimension_));
    count_ = targets.size() / dimension_;
    targets_.resize(targets.size());
    for (std::size_t t = 0; t < count_; ++t) {
        const auto unit = normalized(targets.subspan(t * dimension_, dimension_));
        if (std::all_of(unit.begin(), unit.end(), [](float v) { return v == 0.0f; }))
            throw Error("datastore reach: target " + std::to_string(t) + " is the zero vector or not finite");
        std::copy(unit.begin(), unit.end(), targets_.begin() + static_cast<std::ptrdiff_t>(t * dimension_));
    }
    nearest_.assign(count_ * k_, -std::numeric_limits<float>::infinity());
    nearestCount_.assign(count_, 0);
    std::vector<std::size_t> all(count_);
    for (std::size_t t = 0; t < count_; ++t) all[t] = t;
    refresh(all);
}

std::vector<float> DatastoreReach::normalized(std::span<const float> vector) const {
    if (vector.size() != dimension_)
        throw Error("datastore reach: a vector of " + std::to_string(vector.size()) + " values, the datastore's have " +
                    std::to_string(dimension_));
    double squares = 0.0;
    for (const float v : vector) {
        if (!std::isfinite(v)) return std::vector<float>(dimension_, 0.0f);
        squares += static_cast<double>(v) * static_cast<double>(v);
    }
    std::vector<float> unit(dimension_, 0.0f);
    if (!(squares > 0.0)) return unit;
    const double scale = 1.0 / std::sqrt(squares);
    for (std::size_t i = 0; i < dimension_; ++i) unit[i] = static_cast<float>(static_cast<double>(vector[i]) * scale);
    return unit;
}

float DatastoreReach::dot(std::size_t t, std::span<const float> unit) const {
    const float* row = targets_.data() + t * dimension_;
    float sum = 0.0f;
    for (std::size_t i = 0; i < dimension_; ++i) sum += row[i] * unit[i];
    return std::clamp(sum, -1.0f, 1.0f);
}

std::span<const float> DatastoreReach::target(std::size_t t) const {
    if (t >= count_) throw Error("datastore reach: target " + std::to_string(t) + " of " + std::to_string(count_));
    return std::span<const float>(targets_).subspan(t * dimension_, dimension_);
}

float DatastoreReach::threshold(std::size_t t) const {
    if (t >= count_) throw Error("datastore reach: target " + std::to_string(t) + " of " + std::to_string(count_));
    return nearestCount_[t] < k_ ? -std::numeric_limits<float>::infinity() : nearest_[t * k_ + k_ - 1];
}

float DatastoreReach::similarity(std::size_t t, std::span<const float> vector) const {
    if (t >= count_) throw Error("datastore reach: target " + std::to_string(t) + " of " + std::to_string(count_));
    return dot(t, normalized(vector));
}

float DatastoreReach::targetSimilarity(std::size_t t, std::size_t u) const { return dot(t, target(u)); }

std::vector<std::size_t> DatastoreReach::reachedBy(std::span<const float> vector) const {
    const auto unit = normalized(vector);
    std::vector<std::size_t> reached;
    for (std::size_t t = 0; t < count_; ++t)
        if (dot(t, unit) > threshold(t)) reached.push_back(t);
    return reached;
}

std::vector<std::size_t> DatastoreReach::keyAdded(std::span<const float> vector) {
    const auto unit = normalized(vector);
    std::vector<std::size_t> reached;
    for (std::size_t t = 0; t < count_; ++t) {
        const float cosine = dot(t, unit);
        if (!(cosine > threshold(t))) continue;
        reached.push_back(t);
        // Insert into the row's descending list; the k-th falls off when the row is full.
        float* row = nearest_.data() + t * k_;
        std::size_t& filled = nearestCount_[t];
        std::size_t at = std::min(filled, k_ - 1);
        if (filled < k_) ++filled;
        while (at > 0 && row[at - 1] < cosine) {
            row[at] = row[at - 1];
            --at;
        }
        row[at] = cosine;
    }
    return reached;
}

void DatastoreReach::refresh(std::span<const std::size_t> targets) {
    if (targets.empty()) return;
    std::vector<float> queries;
    queries.reserve(targets.size() * dimension_);
    for (const std::size_t t : targets) {
        const auto row = target(t);
        queries.insert(queries.end(), row.begin(), row.end());
    }
    const auto found = datastore_->search(queries, k_);
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const std::size_t t = targets[i];
        float* row = nearest_.data() + t * k_;
        std::fill(row, row + k_, -std::numeric_limits<float>::infinity());
        nearestCount_[t] = std::min(found[i].size(), k_);
        for (std::size_t j = 0; j < nearestCount_[t]; ++j) row[j] = found[i][j].similarity;
    }
}

}  // namespace linkscope::retrieval
