#include "curation/target_vectors.h"

#include <c10/util/Half.h>

#include <algorithm>
#include <string>

#include "util/error.h"

namespace linkscope::curation {
namespace {

std::uint16_t toHalf(float value) noexcept { return c10::Half(value).x; }  // round to nearest even

float fromHalf(std::uint16_t bits) noexcept { return static_cast<float>(c10::Half(bits, c10::Half::from_bits())); }

}  // namespace

TargetVectors::TargetVectors(std::size_t rows, std::size_t floatBudgetBytes)
    : floatBudget_(floatBudgetBytes), present_(rows, 0) {}

void TargetVectors::checkSet(std::size_t row) const {
    if (!has(row))
        throw Error("curation: mention " + std::to_string(row) + " of " + std::to_string(rows()) +
                    " has not been encoded yet");
}

void TargetVectors::set(std::size_t row, std::span<const float> values) {
    if (row >= rows()) throw Error("curation: mention " + std::to_string(row) + " of " + std::to_string(rows()));
    if (dimension_ == 0) {
        if (values.empty()) throw Error("curation: a mention vector of no dimension");
        dimension_ = values.size();
        // Decided once, before anything is allocated: the whole block at the first row's size.
        half_ = rows() * dimension_ * sizeof(float) > floatBudget_;
        if (half_)
            halves_.assign(rows() * dimension_, 0);
        else
            floats_.assign(rows() * dimension_, 0.0f);
    }
    if (values.size() != dimension_)
        throw Error("curation: a mention vector of " + std::to_string(values.size()) + " dimensions, expected " +
                    std::to_string(dimension_));
    const std::size_t at = row * dimension_;
    if (half_)
        for (std::size_t i = 0; i < dimension_; ++i) halves_[at + i] = toHalf(values[i]);
    else
        std::copy(values.begin(), values.end(), floats_.begin() + static_cast<std::ptrdiff_t>(at));
    present_[row] = 1;
}

std::vector<float> TargetVectors::get(std::size_t row) const {
    checkSet(row);
    const std::size_t at = row * dimension_;
    if (!half_) return {floats_.begin() + static_cast<std::ptrdiff_t>(at), floats_.begin() + static_cast<std::ptrdiff_t>(at + dimension_)};
    std::vector<float> values(dimension_);
    for (std::size_t i = 0; i < dimension_; ++i) values[i] = fromHalf(halves_[at + i]);
    return values;
}

double TargetVectors::dot(std::span<const float> values, std::size_t row) const {
    checkSet(row);
    if (values.size() != dimension_)
        throw Error("curation: a vector of " + std::to_string(values.size()) + " dimensions against " +
                    std::to_string(dimension_));
    const std::size_t at = row * dimension_;
    double sum = 0.0;
    if (half_)
        for (std::size_t i = 0; i < dimension_; ++i) sum += static_cast<double>(values[i]) * fromHalf(halves_[at + i]);
    else
        for (std::size_t i = 0; i < dimension_; ++i) sum += static_cast<double>(values[i]) * floats_[at + i];
    return sum;
}

std::size_t TargetVectors::memoryBytes() const noexcept {
    return present_.capacity() + floats_.capacity() * sizeof(float) + halves_.capacity() * sizeof(std::uint16_t);
}

}  // namespace linkscope::curation
