#include "eval/classical_mds.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "util/error.h"

namespace linkscope::eval {

namespace {

// Cyclic sweeps before giving up. Jacobi converges quadratically once the off-diagonal part
// is small; real matrices need 6 to 12 sweeps, so reaching this is a bug, not bad luck.
constexpr int kMaxSweeps = 100;

std::size_t squareSide(std::size_t size) {
    auto n = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(size))));
    while (n * n > size) --n;
    while ((n + 1) * (n + 1) <= size) ++n;
    if (n * n != size)
        throw Error("classical MDS: a distance matrix of " + std::to_string(size) + " entries is not square");
    return n;
}

// Checks the distances and returns the symmetrised matrix of squared distances.
std::vector<double> squaredDistances(std::span<const double> d, std::size_t n) {
    double largest = 0.0;
    for (std::size_t i = 0; i < d.size(); ++i) {
        const double value = d[i];
        if (!std::isfinite(value))
            throw Error("classical MDS: distance (" + std::to_string(i / n) + ", " + std::to_string(i % n) +
                        ") is not a finite number");
        if (value < 0.0)
            throw Error("classical MDS: distance (" + std::to_string(i / n) + ", " + std::to_string(i % n) +
                        ") is negative");
        largest = std::max(largest, value);
    }
    const double tolerance = 1e-9 * largest;
    std::vector<double> squared(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        if (d[i * n + i] > tolerance)
            throw Error("classical MDS: the distance of point " + std::to_string(i) + " to itself is not zero");
        for (std::size_t j = i + 1; j < n; ++j) {
            const double a = d[i * n + j];
            const double b = d[j * n + i];
            if (std::abs(a - b) > tolerance)
                throw Error("classical MDS: the matrix is not symmetric at (" + std::to_string(i) + ", " +
                            std::to_string(j) + ")");
            const double mean = 0.5 * (a + b);
            squared[i * n + j] = squared[j * n + i] = mean * mean;
        }
    }
    return squared;
}

// B = -1/2 J D2 J, written out: B_ij = -1/2 (D2_ij - rowMean_i - rowMean_j + grandMean).
std::vector<double> doubleCentred(std::vector<double> squared, std::size_t n) {
    std::vector<double> rowMean(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        rowMean[i] = std::accumulate(squared.begin() + static_cast<std::ptrdiff_t>(i * n),
                                     squared.begin() + static_cast<std::ptrdiff_t>((i + 1) * n), 0.0) /
                     static_cast<double>(n);
    const double grandMean = std::accumulate(rowMean.begin(), rowMean.end(), 0.0) / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            squared[i * n + j] = -0.5 * (squared[i * n + j] - rowMean[i] - rowMean[j] + grandMean);
    return squared;
}

}  // namespace

double MdsResult::varianceExplained(std::size_t axis) const noexcept {
    if (axis >= eigenvalues.size() || positiveEigenvalueSum <= 0.0) return 0.0;
    return std::max(eigenvalues[axis], 0.0) / positiveEigenvalueSum;
}

double MdsResult::varianceExplained() const noexcept {
    double sum = 0.0;
    for (std::size_t k = 0; k < eigenvalues.size(); ++k) sum += varianceExplained(k);
    return sum;
}

SymmetricEigen jacobiEigen(std::span<const double> matrix, std::size_t n, const ProgressSink& progress) {
    // The classic threshold Jacobi method (Rutishauser 1971, as in Numerical Recipes' jacobi):
    // only the strict upper triangle of `a` is kept up to date, the diagonal lives in `d`, and
    // the rotations applied during a sweep are accumulated in `z` to limit rounding.
    std::vector<double> a(matrix.begin(), matrix.end());
    SymmetricEigen out;
    out.vectors.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) out.vectors[i * n + i] = 1.0;
    std::vector<double> d(n), b(n), z(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) d[i] = b[i] = a[i * n + i];
    auto at = [&a, n](std::size_t i, std::size_t j) -> double& { return a[i * n + j]; };
    std::vector<double>& v = out.vectors;

    for (int sweep = 1;; ++sweep) {
        progress.checkCancelled();
        double offDiagonal = 0.0;
        for (std::size_t p = 0; p + 1 < n; ++p)
            for (std::size_t q = p + 1; q < n; ++q) offDiagonal += std::abs(at(p, q));
        if (offDiagonal == 0.0) break;  // exact: tiny elements are zeroed below after sweep 4
        if (sweep > kMaxSweeps) throw Error("classical MDS: the Jacobi eigenvalue iteration did not converge");
        // The first sweeps rotate only large elements, which saves work on the small ones.
        const double threshold = sweep < 4 ? 0.2 * offDiagonal / static_cast<double>(n * n) : 0.0;
        for (std::size_t p = 0; p + 1 < n; ++p) {
            for (std::size_t q = p + 1; q < n; ++q) {
                const double apq = at(p, q);
                const double g = 100.0 * std::abs(apq);
                // An element negligible beside both diagonal entries is dropped.
                if (sweep > 4 && std::abs(d[p]) + g == std::abs(d[p]) && std::abs(d[q]) + g == std::abs(d[q])) {
                    at(p, q) = 0.0;
                    continue;
                }
                if (std::abs(apq) <= threshold) continue;
                double h = d[q] - d[p];
                double t = 0.0;
                if (std::abs(h) + g == std::abs(h)) {
                    t = apq / h;  // theta is huge: t = 1 / (2 theta)
                } else {
                    const double theta = 0.5 * h / apq;
                    t = 1.0 / (std::abs(theta) + std::sqrt(1.0 + theta * theta));
                    if (theta < 0.0) t = -t;
                }
                const double c = 1.0 / std::sqrt(1.0 + t * t);
                const double s = t * c;
                const double tau = s / (1.0 + c);
                h = t * apq;
                z[p] -= h;
                z[q] += h;
                d[p] -= h;
                d[q] += h;
                at(p, q) = 0.0;
                const auto rotate = [s, tau](double& x, double& y) {
                    const double gx = x;
                    const double hy = y;
                    x = gx - s * (hy + gx * tau);
                    y = hy + s * (gx - hy * tau);
                };
                for (std::size_t j = 0; j < p; ++j) rotate(at(j, p), at(j, q));
                for (std::size_t j = p + 1; j < q; ++j) rotate(at(p, j), at(j, q));
                for (std::size_t j = q + 1; j < n; ++j) rotate(at(p, j), at(q, j));
                for (std::size_t j = 0; j < n; ++j) rotate(v[j * n + p], v[j * n + q]);
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            b[i] += z[i];
            d[i] = b[i];
            z[i] = 0.0;
        }
    }
    out.values = std::move(d);
    return out;
}

MdsResult classicalMds(std::span<const double> distances, std::size_t dimensions, const ProgressSink& progress) {
    if (dimensions == 0) throw Error("classical MDS: at least one dimension is needed");
    const std::size_t n = squareSide(distances.size());
    MdsResult result;
    result.points = n;
    result.dimensions = dimensions;
    result.coordinates.assign(n * dimensions, 0.0);
    result.eigenvalues.assign(dimensions, 0.0);
    if (n == 0) return result;

    const std::vector<double> gram = doubleCentred(squaredDistances(distances, n), n);
    const SymmetricEigen eigen = jacobiEigen(gram, n, progress);

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return eigen.values[x] > eigen.values[y]; });
    for (const double value : eigen.values)
        if (value > 0.0) result.positiveEigenvalueSum += value;

    for (std::size_t k = 0; k < std::min(dimensions, n); ++k) {
        const std::size_t column = order[k];
        const double value = eigen.values[column];
        result.eigenvalues[k] = value;
        // An eigenvector's sign is arbitrary: fix it so that equal inputs give equal plots.
        std::size_t largest = 0;
        for (std::size_t i = 1; i < n; ++i)
            if (std::abs(eigen.vectors[i * n + column]) > std::abs(eigen.vectors[largest * n + column])) largest = i;
        const double sign = eigen.vectors[largest * n + column] < 0.0 ? -1.0 : 1.0;
        const double scale = sign * std::sqrt(std::max(value, 0.0));
        for (std::size_t i = 0; i < n; ++i)
            result.coordinates[i * dimensions + k] = scale * eigen.vectors[i * n + column];
    }
    return result;
}

}  // namespace linkscope::eval
