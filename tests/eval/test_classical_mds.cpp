// Classical (Torgerson) MDS: configurations recovered up to rotation and reflection, known
// spectra, degenerate inputs, refusals, and the Jacobi eigen-solver on its own.
#include <QTest>

#include <cmath>
#include <vector>

#include "eval/classical_mds.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::eval;

namespace {

using Points = std::vector<std::vector<double>>;

std::vector<double> distancesOf(const Points& points) {
    const std::size_t n = points.size();
    std::vector<double> d(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (std::size_t k = 0; k < points[i].size(); ++k)
                sum += (points[i][k] - points[j][k]) * (points[i][k] - points[j][k]);
            d[i * n + j] = std::sqrt(sum);
        }
    return d;
}

double planeDistance(const MdsResult& r, std::size_t i, std::size_t j) {
    const double dx = r.coordinate(i, 0) - r.coordinate(j, 0);
    const double dy = r.coordinate(i, 1) - r.coordinate(j, 1);
    return std::sqrt(dx * dx + dy * dy);
}

// Largest difference between the input distances and those of the embedding.
double worstDistanceError(const std::vector<double>& d, const MdsResult& r) {
    double worst = 0.0;
    for (std::size_t i = 0; i < r.points; ++i)
        for (std::size_t j = 0; j < r.points; ++j)
            worst = std::max(worst, std::abs(d[i * r.points + j] - planeDistance(r, i, j)));
    return worst;
}

bool throwsError(const std::vector<double>& d) {
    try {
        (void)classicalMds(d);
    } catch (const Error&) {
        return true;
    }
    return false;
}

}  // namespace

class TestClassicalMds : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void recoversPlanarPoints() {
        const Points points{{0, 0}, {3, 0}, {3, 4}, {-1, 2.5}, {0.5, -2}, {7, 1}, {2, 2}};
        const std::vector<double> d = distancesOf(points);
        const MdsResult r = classicalMds(d);
        QCOMPARE(r.points, points.size());
        QCOMPARE(r.coordinates.size(), points.size() * 2);
        QVERIFY2(worstDistanceError(d, r) < 1e-9, qPrintable(QString::number(worstDistanceError(d, r))));
        QVERIFY(r.eigenvalues[0] >= r.eigenvalues[1]);
        QVERIFY(r.eigenvalues[1] > 0);
        // Planar input: the two axes carry all the (positive) spectrum.
        QVERIFY(std::abs(r.varianceExplained() - 1.0) < 1e-9);
        // The embedding is centred (J removes the mean).
        double mx = 0, my = 0;
        for (std::size_t i = 0; i < r.points; ++i) mx += r.coordinate(i, 0), my += r.coordinate(i, 1);
        QVERIFY(std::abs(mx) < 1e-9 && std::abs(my) < 1e-9);
    }

    void recoversALargerRandomCloud() {
        Points points;
        unsigned state = 12345;
        const auto next = [&state] {
            state = state * 1103515245u + 12345u;
            return static_cast<double>((state >> 8) % 10000) / 100.0;
        };
        for (int i = 0; i < 120; ++i) points.push_back({next(), next()});
        const std::vector<double> d = distancesOf(points);
        const MdsResult r = classicalMds(d);
        QVERIFY2(worstDistanceError(d, r) < 1e-9, qPrintable(QString::number(worstDistanceError(d, r))));
    }

    void isDeterministic() {
        const std::vector<double> d = distancesOf({{0, 0}, {1, 0}, {0, 2}, {5, 5}, {-3, 1}});
        const MdsResult a = classicalMds(d);
        const MdsResult b = classicalMds(d);
        QCOMPARE(a.coordinates, b.coordinates);
        // The sign convention: each axis' largest component is positive.
        for (std::size_t k = 0; k < 2; ++k) {
            std::size_t largest = 0;
            for (std::size_t i = 1; i < a.points; ++i)
                if (std::abs(a.coordinate(i, k)) > std::abs(a.coordinate(largest, k))) largest = i;
            QVERIFY(a.coordinate(largest, k) > 0);
        }
    }

    void collinearPoints() {
        const Points points{{0}, {1}, {4}, {-2}, {10}};
        const std::vector<double> d = distancesOf(points);
        const MdsResult r = classicalMds(d);
        QVERIFY(worstDistanceError(d, r) < 1e-9);
        QVERIFY(r.eigenvalues[0] > 0);
        QVERIFY(std::abs(r.eigenvalues[1]) < 1e-9);
        for (std::size_t i = 0; i < r.points; ++i) QVERIFY(std::abs(r.coordinate(i, 1)) < 1e-7);
        QVERIFY(std::abs(r.varianceExplained(0) - 1.0) < 1e-9);
        // The line's own coordinates: centred at the mean 2.6, up to sign.
        for (std::size_t i = 0; i < r.points; ++i)
            QVERIFY(std::abs(std::abs(r.coordinate(i, 0)) - std::abs(points[i][0] - 2.6)) < 1e-9);
    }

    void duplicatesAreAtTheSamePlace() {
        const Points points{{1, 1}, {1, 1}, {4, 5}, {4, 5}, {0, 3}};
        const std::vector<double> d = distancesOf(points);
        const MdsResult r = classicalMds(d);
        QVERIFY(worstDistanceError(d, r) < 1e-9);
        QVERIFY(planeDistance(r, 0, 1) < 1e-9);
        QVERIFY(planeDistance(r, 2, 3) < 1e-9);
        // All points equal: everything at the origin, no variance at all.
        const MdsResult same = classicalMds(std::vector<double>(9, 0.0));
        QCOMPARE(same.coordinates, std::vector<double>(6, 0.0));
        QCOMPARE(same.varianceExplained(), 0.0);
    }

    void oneAndTwoPoints() {
        const MdsResult one = classicalMds(std::vector<double>{0.0});
        QCOMPARE(one.points, std::size_t{1});
        QCOMPARE(one.coordinates, (std::vector<double>{0.0, 0.0}));
        QCOMPARE(one.eigenvalues, (std::vector<double>{0.0, 0.0}));

        const MdsResult two = classicalMds(std::vector<double>{0.0, 5.0, 5.0, 0.0});
        QCOMPARE(two.points, std::size_t{2});
        QVERIFY(std::abs(planeDistance(two, 0, 1) - 5.0) < 1e-12);
        QVERIFY(std::abs(two.eigenvalues[0] - 12.5) < 1e-12);  // 2 * (5/2)^2
        QCOMPARE(two.eigenvalues[1], 0.0);
        QVERIFY(std::abs(two.coordinate(0, 0) + two.coordinate(1, 0)) < 1e-12);  // symmetric about 0

        const MdsResult none = classicalMds(std::vector<double>{});
        QCOMPARE(none.points, std::size_t{0});
        QVERIFY(none.coordinates.empty());
    }

    void knownSpectrumOfA3DConfiguration() {
        // +-a e1, +-b e2, +-c e3: centred, and B = X X' has the eigenvalues of
        // X'X = diag(2a^2, 2b^2, 2c^2) = 18, 8, 2 for a = 3, b = 2, c = 1.
        const Points points{{3, 0, 0}, {-3, 0, 0}, {0, 2, 0}, {0, -2, 0}, {0, 0, 1}, {0, 0, -1}};
        const MdsResult r = classicalMds(distancesOf(points));
        QVERIFY(std::abs(r.eigenvalues[0] - 18.0) < 1e-9);
        QVERIFY(std::abs(r.eigenvalues[1] - 8.0) < 1e-9);
        QVERIFY(std::abs(r.positiveEigenvalueSum - 28.0) < 1e-9);
        QVERIFY(std::abs(r.varianceExplained() - 26.0 / 28.0) < 1e-9);
        // The third axis is dropped: points +-c e3 land at the origin.
        QVERIFY(std::abs(r.coordinate(4, 0)) < 1e-9 && std::abs(r.coordinate(4, 1)) < 1e-9);
        // Three dimensions recover it exactly.
        const MdsResult r3 = classicalMds(distancesOf(points), 3);
        QVERIFY(std::abs(r3.eigenvalues[2] - 2.0) < 1e-9);
    }

    void nonEuclideanDistancesDropNegativeEigenvalues() {
        // Violates the triangle inequality: B has a negative eigenvalue; coordinates stay finite.
        const std::vector<double> d{0, 1, 5, 1, 0, 1, 5, 1, 0};
        const MdsResult r = classicalMds(d);
        for (const double x : r.coordinates) QVERIFY(std::isfinite(x));
        QVERIFY(r.eigenvalues[1] <= 1e-12);
        QVERIFY(r.varianceExplained() <= 1.0 + 1e-12);
    }

    void refusesBadMatrices() {
        QVERIFY(throwsError({0, 1, 1}));       // 3 entries: not square
        QVERIFY(throwsError({0, 1, 2, 0}));    // asymmetric
        QVERIFY(throwsError({0, -1, -1, 0}));  // negative
        QVERIFY(throwsError({0, std::nan(""), std::nan(""), 0}));
        QVERIFY(throwsError({0, INFINITY, INFINITY, 0}));
        QVERIFY(throwsError({1, 2, 2, 0}));  // non-zero diagonal
        bool threw = false;
        try {
            (void)classicalMds(std::vector<double>{0, 1, 2, 0});
        } catch (const Error& e) {
            threw = QString::fromUtf8(e.what()).contains(QStringLiteral("symmetric"));
        }
        QVERIFY(threw);
        threw = false;
        try {
            (void)classicalMds(std::vector<double>{0.0}, 0);
        } catch (const Error&) {
            threw = true;
        }
        QVERIFY(threw);
        // Rounding-level asymmetry is accepted.
        QVERIFY(!throwsError({0, 1.0, 1.0 + 1e-13, 0}));
    }

    void cancellation() {
        const std::vector<double> d = distancesOf({{0, 0}, {1, 0}, {0, 1}, {2, 2}});
        ProgressSink stop;
        stop.cancelled = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, (void)classicalMds(d, 2, stop));
    }

    void jacobiDiagonalizes() {
        // A symmetric 4x4 with known eigenvalues 1, 2, 3, 4 in an arbitrary basis: check A V = V L.
        const std::vector<double> a{4, 1, 0.5, 0.2, 1, 3, 0.3, 0.1, 0.5, 0.3, 2, 0.7, 0.2, 0.1, 0.7, 1};
        const SymmetricEigen e = jacobiEigen(a, 4);
        double trace = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            trace += e.values[k];
            for (std::size_t i = 0; i < 4; ++i) {
                double av = 0;
                for (std::size_t j = 0; j < 4; ++j) av += a[i * 4 + j] * e.vectors[j * 4 + k];
                QVERIFY(std::abs(av - e.values[k] * e.vectors[i * 4 + k]) < 1e-12);
            }
            for (std::size_t l = 0; l < 4; ++l) {  // orthonormal
                double dot = 0;
                for (std::size_t i = 0; i < 4; ++i) dot += e.vectors[i * 4 + k] * e.vectors[i * 4 + l];
                QVERIFY(std::abs(dot - (k == l ? 1.0 : 0.0)) < 1e-12);
            }
        }
        QVERIFY(std::abs(trace - 10.0) < 1e-12);
    }
};

QTEST_APPLESS_MAIN(TestClassicalMds)
#include "test_classical_mds.moc"
