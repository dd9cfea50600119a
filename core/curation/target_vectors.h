#pragma once
// The vectors of the mentions a feedback loop links (feedback_loop.h), one row per mention, in
// one block of memory: in float while the block stays small, in half precision above a budget.
//
// Why half precision: the curation GUI keeps every mention's vector for as long as a run links
// the project (the datastore searches and the reach of a decision read them). MedMentions has
// about 350,000 mentions; at BERT's 768 dimensions their float vectors take 1.07 GB, a map of one
// std::vector per mention more, and ModelCandidates' memory must stay bounded. Half
// precision halves that, and its rounding (a relative 2^-11 per component) moves a cosine by
// about 10^-3 at most, below the gaps that decide a kNN ranking in all but near ties. The model's
// own candidate lists are computed from the float vectors before they are stored, so only the
// datastore half of the interpolation reads rounded vectors; the keys a decision adds are the
// same rounded vectors, so a mention still finds its own key at cosine 1.
//
// Below the budget (every corpus of docs/results.md: NCBI Disease's 6,881 mentions x 256
// dimensions are 7 MB) the vectors stay float and nothing changes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace linkscope::curation {

class TargetVectors {
public:
    /// Float rows up to this many bytes (rows x dimension x 4), half precision above.
    static constexpr std::size_t kDefaultFloatBudget = std::size_t{256} << 20;

    /// `rows` empty rows; the dimension is fixed by the first set().
    explicit TargetVectors(std::size_t rows, std::size_t floatBudgetBytes = kDefaultFloatBudget);

    std::size_t rows() const noexcept { return present_.size(); }
    std::size_t dimension() const noexcept { return dimension_; }
    /// Whether the rows are kept in half precision (decided by the first set()).
    bool halfPrecision() const noexcept { return half_; }
    bool has(std::size_t row) const noexcept { return row < present_.size() && present_[row] != 0; }

    /// Stores a row; Error when the row is out of range or its size differs from the dimension.
    void set(std::size_t row, std::span<const float> values);
    /// The stored row as floats (rounded, in half precision); Error when it was never set.
    std::vector<float> get(std::size_t row) const;
    /// The dot product of `values` with a stored row, in double, from the stored (rounded)
    /// components; Error when the row was never set or the sizes differ.
    double dot(std::span<const float> values, std::size_t row) const;

    /// Bytes held (the rows' block and the flags).
    std::size_t memoryBytes() const noexcept;

private:
    void checkSet(std::size_t row) const;

    std::size_t floatBudget_;
    bool f16c_ = false;  // the CPU converts half precision in hardware (x86-64 F16C)
    std::size_t dimension_ = 0;
    bool half_ = false;
    std::vector<std::uint8_t> present_;
    std::vector<float> floats_;
    std::vector<std::uint16_t> halves_;  // IEEE binary16 bits
};

}  // namespace linkscope::curation
