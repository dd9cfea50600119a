#include "curation/target_vectors.h"

#include <c10/util/Half.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <string>

#include "util/error.h"

namespace linkscope::curation {
namespace {

std::uint16_t toHalf(float value) noexcept { return c10::Half(value).x; }  // round to nearest even

float fromHalf(std::uint16_t bits) noexcept { return static_cast<float>(c10::Half(bits, c10::Half::from_bits())); }

// The dot product of floats with half-precision components, in double. A decision's reach reads
// every mention's row (350,000 at MedMentions' size), so the conversion matters: F16C converts
// eight halves in one instruction where the portable conversion takes about a nanosecond each.
double dotPortable(const float* values, const std::uint16_t* halves, std::size_t n) noexcept {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(values[i]) * fromHalf(halves[i]);
    return sum;
}

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) double dotF16c(const float* values, const std::uint16_t* halves,
                                                   std::size_t n) noexcept {
    // Four double lanes: each product of two floats is exact in double, as in the portable sum;
    // only the order of the additions differs.
    __m256d sum = _mm256_setzero_pd();
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 row = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(halves + i)));
        const __m256 given = _mm256_loadu_ps(values + i);
        sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(given)),
                                               _mm256_cvtps_pd(_mm256_castps256_ps128(row))));
        sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(given, 1)),
                                               _mm256_cvtps_pd(_mm256_extractf128_ps(row, 1))));
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, sum);
    // Clean upper register halves before the SSE code around (FAISS, LibTorch) runs again: GCC
    // emits no vzeroupper here by itself, and dirty halves made that code several times slower
    // (benchmarks/model_linking, the re-ranking).
    _mm256_zeroupper();
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + dotPortable(values + i, halves + i, n - i);
}
#endif

}  // namespace

TargetVectors::TargetVectors(std::size_t rows, std::size_t floatBudgetBytes)
    : floatBudget_(floatBudgetBytes), present_(rows, 0) {
#if defined(__x86_64__)
    f16c_ = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
#endif
}

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
    if (!half_) {
        const auto first = floats_.begin() + static_cast<std::ptrdiff_t>(at);
        return {first, first + static_cast<std::ptrdiff_t>(dimension_)};
    }
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
    if (half_) {
#if defined(__x86_64__)
        if (f16c_) return dotF16c(values.data(), halves_.data() + at, dimension_);
#endif
        return dotPortable(values.data(), halves_.data() + at, dimension_);
    }
    double sum = 0.0;
    for (std::size_t i = 0; i < dimension_; ++i) sum += static_cast<double>(values[i]) * floats_[at + i];
    return sum;
}

std::size_t TargetVectors::memoryBytes() const noexcept {
    return present_.capacity() + floats_.capacity() * sizeof(float) + halves_.capacity() * sizeof(std::uint16_t);
}

}  // namespace linkscope::curation
