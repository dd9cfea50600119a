#include "util/inner_products.h"

#include <algorithm>
#include <string>

#include "util/error.h"

#if LINKSCOPE_HAVE_CBLAS
#include <cblas.h>
#include <dlfcn.h>

#include <limits>
#endif

namespace linkscope::util {

#if LINKSCOPE_HAVE_CBLAS
namespace {

using Sgemm = decltype(&cblas_sgemm);

// cblas_sgemm of the BLAS, opened on the first product rather than linked: OpenBLAS relocates its
// kernel tables and starts its thread pool as it loads, which every start of every program that
// links the engine would otherwise pay (benchmarks/startup). The copy already in the process where
// there is one (LibTorch and FAISS link it); null where none opens, and the products are the loop.
Sgemm blasSgemm() {
    static const Sgemm sgemm = []() -> Sgemm {
        if (void* symbol = dlsym(RTLD_DEFAULT, "cblas_sgemm")) return reinterpret_cast<Sgemm>(symbol);
        for (const char* name : {LINKSCOPE_CBLAS_SONAME, LINKSCOPE_CBLAS_PATH})
            if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))
                if (void* symbol = dlsym(handle, "cblas_sgemm")) return reinterpret_cast<Sgemm>(symbol);
        return nullptr;
    }();
    return sgemm;
}

}  // namespace
#endif

void innerProducts(std::span<const float> a, std::span<const float> b, std::size_t dimension, std::span<float> out) {
    if (dimension == 0 || a.size() % dimension != 0 || b.size() % dimension != 0)
        throw Error("inner products: " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                    " values are not whole rows of dimension " + std::to_string(dimension));
    const std::size_t aRows = a.size() / dimension, bRows = b.size() / dimension;
    if (out.size() != aRows * bRows)
        throw Error("inner products: room for " + std::to_string(out.size()) + " values, " + std::to_string(aRows) +
                    " x " + std::to_string(bRows) + " needed");
    if (out.empty()) return;
#if LINKSCOPE_HAVE_CBLAS
    // BLAS takes int sizes and (the reference BLAS) indexes a matrix with int products: b whole,
    // and a and out a slice of a's rows at a time, each matrix within int range.
    constexpr std::size_t intMax = static_cast<std::size_t>(std::numeric_limits<int>::max());
    if (const Sgemm sgemm = blasSgemm(); sgemm && bRows <= intMax / dimension) {
        const std::size_t sliceRows = std::max<std::size_t>(1, std::min(aRows, intMax / std::max(bRows, dimension)));
        for (std::size_t first = 0; first < aRows; first += sliceRows) {
            const std::size_t rows = std::min(sliceRows, aRows - first);
            // out = a · bᵀ, all row-major: M = rows, N = bRows, K = dimension.
            sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(bRows),
                  static_cast<int>(dimension), 1.0f, a.data() + first * dimension, static_cast<int>(dimension),
                  b.data(), static_cast<int>(dimension), 0.0f, out.data() + first * bRows, static_cast<int>(bRows));
        }
        return;
    }
#endif
    // Without a CBLAS (at build or at run time), or for rows too long for its int sizes: the plain loop.
    for (std::size_t i = 0; i < aRows; ++i)
        for (std::size_t j = 0; j < bRows; ++j) {
            float sum = 0.0f;
            for (std::size_t t = 0; t < dimension; ++t) sum += a[i * dimension + t] * b[j * dimension + t];
            out[i * bRows + j] = sum;
        }
}

double innerProductRoundingBound(std::size_t dimension) noexcept {
    constexpr double unitRoundoff = 1.0 / 16777216.0;  // 2^-24, float's
    const double du = static_cast<double>(dimension) * unitRoundoff;
    // The extra 8 u: the rows' norms, each 1 within a few u after normalization in double.
    return (du < 0.5 ? du / (1.0 - du) : 1.0) + 8.0 * unitRoundoff;
}

}  // namespace linkscope::util
