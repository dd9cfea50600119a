#include "util/inner_products.h"

#include <string>

#include "util/error.h"

#if LINKSCOPE_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace linkscope::util {

void innerProducts(std::span<const float> a, std::span<const float> b, std::size_t dimension, std::span<float> out) {
    if (dimension == 0 || a.size() % dimension != 0 || b.size() % dimension != 0)
        throw Error("inner products: " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                    " values are not whole rows of dimension " + std::to_string(dimension));
    const std::size_t aRows = a.size() / dimension, bRows = b.size() / dimension;
    if (out.size() != aRows * bRows)
        throw Error("inner products: room for " + std::to_string(out.size()) + " values, " + std::to_string(aRows) +
                    " x " + std::to_string(bRows) + " needed");
    if (out.empty()) return;
#if LINKSCOPE_HAVE_TORCH
    torch::NoGradGuard noGrad;
    const auto d = static_cast<std::int64_t>(dimension);
    // from_blob wraps the callers' memory without copying; torch only reads a and b.
    const auto left =
        torch::from_blob(const_cast<float*>(a.data()), {static_cast<std::int64_t>(aRows), d}, torch::kFloat);
    const auto right =
        torch::from_blob(const_cast<float*>(b.data()), {static_cast<std::int64_t>(bRows), d}, torch::kFloat);
    auto result = torch::from_blob(out.data(), {static_cast<std::int64_t>(aRows), static_cast<std::int64_t>(bRows)},
                                   torch::kFloat);
    torch::mm_out(result, left, right.t());
#else
    // Without LibTorch (a build of the engine without the dense part): the plain loop.
    for (std::size_t i = 0; i < aRows; ++i)
        for (std::size_t j = 0; j < bRows; ++j) {
            float sum = 0.0f;
            for (std::size_t t = 0; t < dimension; ++t) sum += a[i * dimension + t] * b[j * dimension + t];
            out[i * bRows + j] = sum;
        }
#endif
}

double innerProductRoundingBound(std::size_t dimension) noexcept {
    constexpr double unitRoundoff = 1.0 / 16777216.0;  // 2^-24, float's
    const double du = static_cast<double>(dimension) * unitRoundoff;
    // The extra 8 u: the rows' norms, each 1 within a few u after normalization in double.
    return (du < 0.5 ? du / (1.0 - du) : 1.0) + 8.0 * unitRoundoff;
}

}  // namespace linkscope::util
