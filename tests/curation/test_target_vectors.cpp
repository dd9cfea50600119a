// The feedback loop's mention vectors (curation/target_vectors.h): float below the
// budget, exactly as given; half precision above it, each component within half precision's
// rounding, dot products within the matching bound; rows set once each, errors for misuse.
#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

#include "curation/target_vectors.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::curation;

namespace {

// Round to nearest in binary16 is within half an ulp: 2^-11 of the value for normal numbers.
constexpr double kHalfRelative = 1.0 / 2048.0;
// Sums of at most 64 products in double: the order (or a fused multiply-add) moves the last bits only.
constexpr double kSumTolerance = 1e-12;

std::vector<float> randomRow(std::mt19937& random, std::size_t dimension) {
    std::normal_distribution<float> component(0.0f, 1.0f);
    std::vector<float> row(dimension);
    for (float& v : row) v = component(random);
    return row;
}

}  // namespace

class TestTargetVectors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void floatRowsAreKeptExactly() {
        std::mt19937 random(3);
        TargetVectors vectors(10);  // 10 x 32 floats: far below the default budget
        QVERIFY(!vectors.has(4));
        const auto row = randomRow(random, 32);
        vectors.set(4, row);
        QVERIFY(vectors.has(4));
        QVERIFY(!vectors.halfPrecision());
        QCOMPARE(vectors.dimension(), std::size_t{32});
        QVERIFY(vectors.get(4) == row);  // the same floats
        double expected = 0.0;
        for (const float v : row) expected += static_cast<double>(v) * v;
        QVERIFY(std::abs(vectors.dot(row, 4) - expected) <= kSumTolerance * expected);
    }

    void halfRowsAreRoundedWithinHalfPrecision_data() {
        QTest::addColumn<int>("dimension_");
        QTest::newRow("64: whole blocks of eight") << 64;
        QTest::newRow("13: a block and a tail of five") << 13;
    }
    void halfRowsAreRoundedWithinHalfPrecision() {
        QFETCH(int, dimension_);
        std::mt19937 random(5);
        const std::size_t rows = 200, dimension = static_cast<std::size_t>(dimension_);
        TargetVectors half(rows, /*floatBudgetBytes=*/0);
        TargetVectors full(rows);
        std::vector<std::vector<float>> given;
        for (std::size_t r = 0; r < rows; ++r) {
            given.push_back(randomRow(random, dimension));
            half.set(r, given.back());
            full.set(r, given.back());
        }
        QVERIFY(half.halfPrecision());
        QVERIFY(!full.halfPrecision());
        // Half the bytes of the rows (the flags are one byte a row in both).
        QCOMPARE(half.memoryBytes(), rows + rows * dimension * 2);
        QCOMPARE(full.memoryBytes(), rows + rows * dimension * 4);
        bool someRounded = false;
        for (std::size_t r = 0; r < rows; ++r) {
            const auto got = half.get(r);
            QCOMPARE(got.size(), dimension);
            double bound = 0.0, dotGiven = 0.0;
            for (std::size_t i = 0; i < dimension; ++i) {
                const double v = given[r][i];
                QVERIFY2(std::abs(got[i] - v) <= kHalfRelative * std::abs(v) + 1e-7, "a component beyond rounding");
                someRounded = someRounded || got[i] != given[r][i];
                dotGiven += v * given[0][i];
                bound += kHalfRelative * std::abs(v * given[0][i]);
            }
            // The dot of a float query with a stored row: the rounding of the row's components only.
            QVERIFY(std::abs(half.dot(given[0], r) - dotGiven) <= bound + 1e-9);
            // And exactly the dot with the row as get() gives it.
            double fromGet = 0.0;
            for (std::size_t i = 0; i < dimension; ++i) fromGet += static_cast<double>(given[0][i]) * got[i];
            QVERIFY(std::abs(half.dot(given[0], r) - fromGet) <= kSumTolerance * (1.0 + std::abs(fromGet)));
        }
        QVERIFY2(someRounded, "half precision rounds random floats");
    }

    void theBudgetDecidesAtTheFirstRow() {
        // 100 rows x 8 dimensions x 4 bytes = 3,200 bytes: float within 3,200, half beyond.
        TargetVectors within(100, 3200), beyond(100, 3199);
        const std::vector<float> row(8, 0.5f);
        within.set(0, row);
        beyond.set(0, row);
        QVERIFY(!within.halfPrecision());
        QVERIFY(beyond.halfPrecision());
        QVERIFY(beyond.get(0) == row);  // 0.5 is exact in half precision
    }

    void misuseIsAnError() {
        TargetVectors vectors(3);
        QVERIFY_THROWS_EXCEPTION(Error, vectors.get(0));                        // never set
        QVERIFY_THROWS_EXCEPTION(Error, vectors.set(3, {}));                    // out of range
        QVERIFY_THROWS_EXCEPTION(Error, vectors.set(0, std::vector<float>{}));  // no dimension
        vectors.set(0, std::vector<float>{1.0f, 2.0f});
        QVERIFY_THROWS_EXCEPTION(Error, vectors.set(1, std::vector<float>{1.0f}));  // another dimension
        QVERIFY_THROWS_EXCEPTION(Error, vectors.dot(std::vector<float>{1.0f}, 0));
        QVERIFY_THROWS_EXCEPTION(Error, vectors.dot(std::vector<float>{1.0f, 1.0f}, 2));
        QVERIFY(!vectors.has(99));
    }
};

QTEST_GUILESS_MAIN(TestTargetVectors)
#include "test_target_vectors.moc"
