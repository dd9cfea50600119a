#pragma once
// Every inner product of two sets of rows at once, a · bᵀ: the kNN datastore's batched search
// scores a block of queries against a block of keys this way. It is one BLAS matrix product
// (cblas_sgemm: blocked, and multi-threaded with OpenBLAS), several times faster than a loop of
// dot products; a build without a CBLAS, or a machine where none can be opened, takes the loop.
#include <cstddef>
#include <span>

namespace linkscope::util {

/// out[i * bRows + j] = a row i · b row j, for row-major a (aRows x dimension) and b (bRows x
/// dimension); aRows and bRows follow from the spans' sizes. Throws Error when a size is not
/// whole rows or out is not aRows x bRows. The order of the additions is the library's, so a
/// value can differ from a sequential dot product's by rounding: see innerProductRoundingBound.
void innerProducts(std::span<const float> a, std::span<const float> b, std::size_t dimension, std::span<float> out);

/// A bound on |computed - exact| for the inner product of two unit vectors of `dimension` floats,
/// whatever order the additions take (with or without fused multiply-adds): d·u / (1 - d·u),
/// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, §3.1, with Σ|a_i b_i| ≤ 1
/// by Cauchy-Schwarz), plus room for rows whose norm is 1 only to rounding. Two methods of
/// computing the same product then differ by at most twice this.
double innerProductRoundingBound(std::size_t dimension) noexcept;

}  // namespace linkscope::util
