#pragma once
// Classical (Torgerson) multidimensional scaling: points in a few dimensions whose Euclidean
// distances best reproduce a matrix of distances (Torgerson 1952; Gower 1966). The embedding
// plot draws an entity's mentions and names with it, as Le & Nguyen's Figure 4 does.
//
//   D2 = the squared distances, J = I - 11'/n (centring), B = -1/2 J D2 J,
//   X  = V_d * sqrt(max(Lambda_d, 0)) for the d largest eigenpairs (Lambda_d, V_d) of B.
//
// When the distances are Euclidean, B is the Gram matrix of the centred points and X recovers
// them up to rotation and reflection; otherwise B has negative eigenvalues, which are dropped.
#include <cstddef>
#include <span>
#include <vector>

#include "util/progress.h"

namespace linkscope::eval {

struct MdsResult {
    std::size_t points = 0;
    std::size_t dimensions = 0;
    /// points x dimensions, row-major: point i is at coordinates[i * dimensions + k].
    std::vector<double> coordinates;
    /// The `dimensions` largest eigenvalues of B, descending (zero-padded when there are fewer
    /// points than dimensions). A negative value means the axis carries nothing.
    std::vector<double> eigenvalues;
    /// Sum of all positive eigenvalues of B: what "variance explained" is relative to.
    double positiveEigenvalueSum = 0.0;

    double coordinate(std::size_t point, std::size_t axis) const noexcept {
        return coordinates[point * dimensions + axis];
    }
    /// Share (0..1) of the positive spectrum that axis k (or all kept axes when k is omitted)
    /// shows; 0 when B has no positive eigenvalue (all points coincide).
    double varianceExplained(std::size_t axis) const noexcept;
    double varianceExplained() const noexcept;
};

/// Classical MDS of a symmetric n x n distance matrix given row-major (n is the square root of
/// its size). Throws Error when the size is not a square, an entry is NaN, infinite or
/// negative, the diagonal is not zero, or d(i, j) and d(j, i) differ (by more than 1e-9 of the
/// largest distance: rounding of a computed symmetric matrix is tolerated, and the mean of the
/// two is used). Deterministic: the same input gives the same coordinates bit for bit, each
/// axis' sign fixed so that its largest component (the first of equals) is positive.
///
/// Eigenvectors come from the cyclic Jacobi method on the whole of B: for the few hundred
/// points of a plot it is fast enough (O(n^3) per sweep, a handful of sweeps), it needs no
/// start vector or iteration count tuning, it is accurate to working precision for every
/// eigenpair, and it gives the whole spectrum, hence the "variance explained" denominator.
/// Power iteration would converge slowly when the two top eigenvalues are close, as they are
/// for round clouds of points. `progress` is consulted between sweeps (Cancelled).
MdsResult classicalMds(std::span<const double> distances, std::size_t dimensions = 2,
                       const ProgressSink& progress = {});

/// The eigenvalues (ascending order not promised: `values[k]` goes with column k of `vectors`)
/// and eigenvectors (n x n row-major, column k is the k-th eigenvector, unit length) of a
/// symmetric matrix, by cyclic Jacobi rotations. Exposed for tests; `matrix` is not checked
/// for symmetry (its upper triangle is used).
struct SymmetricEigen {
    std::vector<double> values;
    std::vector<double> vectors;
};
SymmetricEigen jacobiEigen(std::span<const double> matrix, std::size_t n, const ProgressSink& progress = {});

}  // namespace linkscope::eval
