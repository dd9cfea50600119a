// kNN-BioEL's interpolation (Lin et al. 2024, eq. 4-6) against values computed by hand at 40
// digits (mpmath). Scores and similarities are dyadic fractions, exact in float, so the
// expected values do not depend on how 0.8f rounds.
#include <cmath>
#include <limits>
#include <string>

#include "retrieval/knn_interpolation.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

// a equals b within 1e-12 relative (b = 0 demands exactly 0).
bool near(double a, double b) {
    if (b == 0.0) return a == 0.0;
    return std::abs(a - b) <= 1e-12 * std::abs(b);
}

#define CHECK_NEAR(actual, expected)                                                       \
    QVERIFY2(near((actual), (expected)), qPrintable(QStringLiteral("%1 = %2, expected %3") \
                                                        .arg(QLatin1String(#actual))       \
                                                        .arg(actual, 0, 'g', 17)           \
                                                        .arg(expected, 0, 'g', 17)))

const InterpolatedEntity* find(const std::vector<InterpolatedEntity>& result, std::uint32_t entity) {
    for (const auto& row : result)
        if (row.entity == entity) return &row;
    return nullptr;
}

std::vector<std::uint32_t> order(const std::vector<InterpolatedEntity>& result) {
    std::vector<std::uint32_t> entities;
    for (const auto& row : result) entities.push_back(row.entity);
    return entities;
}

KnnSettings with(double lambda, double beta1 = 0.01, double beta2 = 1.0, std::size_t k = 4) {
    return {.k = k, .lambda = lambda, .beta1 = beta1, .beta2 = beta2};
}

template <typename F>
std::string errorOf(F&& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return {};
}

// The three-entity case: entity 20 is named by two neighbours, entity 30 by one, 10 by none.
const std::vector<EntityScore> model{{10, 0.75f}, {20, 0.734375f}, {30, 0.6875f}};
const std::vector<EntityNeighbor> neighbors{{20, 0.875f}, {20, 0.5f}, {30, 0.75f}};

// p_model at beta1 = 0.01 (exp(0), exp(-1.5625), exp(-6.25) normalized).
constexpr double pm10 = 0.82539452284821509504;
constexpr double pm20 = 0.17301209088113287167;
constexpr double pm30 = 0.0015933862706520332918;
// p_kNN at beta2 = 1 with max aggregation: exp(0.875) and exp(0.75) normalized.
constexpr double pk20 = 0.53120937337375625725;
constexpr double pk30 = 0.46879062662624374275;
// With sum aggregation instead, entity 20 would weigh exp(0.875) + exp(0.5): p_kNN = 0.6566,
// p = 0.2214 at lambda = 0.1.
constexpr double pk20Sum = 0.65658742000386655363;
constexpr double p20Sum = 0.22136962379340623987;

}  // namespace

class TestKnnInterpolation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void paperSettings() {
        const auto ncbi = KnnSettings::ncbi();
        QCOMPARE(ncbi.k, std::size_t{4});
        QCOMPARE(ncbi.lambda, 0.1);
        QCOMPARE(ncbi.beta1, 0.01);
        QCOMPARE(ncbi.beta2, 1.0);
        const auto bc5cdr = KnnSettings::bc5cdr();
        QCOMPARE(bc5cdr.k, std::size_t{4});
        QCOMPARE(bc5cdr.lambda, 0.1);
        QCOMPARE(bc5cdr.beta1, 0.05);
        QCOMPARE(bc5cdr.beta2, 5.0);
        const KnnSettings defaults;
        QCOMPARE(defaults.beta1, ncbi.beta1);
        QCOMPARE(defaults.beta2, ncbi.beta2);
        validate(ncbi);
        validate(bc5cdr);
    }

    void maxAggregationNotSum() {
        const auto result = interpolate(model, neighbors, KnnSettings::ncbi());
        QCOMPARE(order(result), (std::vector<std::uint32_t>{10, 20, 30}));
        const auto& e10 = *find(result, 10);
        const auto& e20 = *find(result, 20);
        const auto& e30 = *find(result, 30);
        CHECK_NEAR(e10.modelProbability, pm10);
        CHECK_NEAR(e20.modelProbability, pm20);
        CHECK_NEAR(e30.modelProbability, pm30);
        CHECK_NEAR(e10.knnProbability, 0.0);
        CHECK_NEAR(e20.knnProbability, pk20);
        CHECK_NEAR(e30.knnProbability, pk30);
        CHECK_NEAR(e10.probability, 0.74285507056339358553);
        CHECK_NEAR(e20.probability, 0.20883181913039521023);
        CHECK_NEAR(e30.probability, 0.048313110306211204238);
        // Summing the two neighbours of entity 20 would give another answer, far outside the
        // tolerance: the max is what is computed.
        QVERIFY(!near(e20.knnProbability, pk20Sum));
        QVERIFY(!near(e20.probability, p20Sum));
        // The parts shown for error analysis.
        QCOMPARE(e20.neighbors, std::size_t{2});
        QCOMPARE(e20.neighborSimilarity, 0.875f);
        QCOMPARE(e30.neighbors, std::size_t{1});
        QCOMPARE(e30.neighborSimilarity, 0.75f);
        QCOMPARE(e10.neighbors, std::size_t{0});
        QCOMPARE(e10.neighborSimilarity, 0.0f);
        QCOMPARE(e20.modelScore, 0.734375f);
        double total = 0.0;
        for (const auto& row : result) total += row.probability;
        CHECK_NEAR(total, 1.0);
    }

    void heavierKnnWeightReordersTheEntities() {
        const auto result = interpolate(model, neighbors, with(0.7));
        QCOMPARE(order(result), (std::vector<std::uint32_t>{20, 30, 10}));
        CHECK_NEAR(find(result, 10)->probability, 0.24761835685446452851);
        CHECK_NEAR(find(result, 20)->probability, 0.42375018862596924157);
        CHECK_NEAR(find(result, 30)->probability, 0.32863145451956622992);
    }

    void bc5cdrTemperatures() {
        const auto result = interpolate(model, neighbors, KnnSettings::bc5cdr());
        QCOMPARE(order(result), (std::vector<std::uint32_t>{10, 20, 30}));
        CHECK_NEAR(find(result, 10)->modelProbability, 0.49551056875122121147);
        CHECK_NEAR(find(result, 20)->knnProbability, 0.50624967449951043213);
        CHECK_NEAR(find(result, 10)->probability, 0.44595951187609909032);
        CHECK_NEAR(find(result, 20)->probability, 0.37689591621592064848);
        CHECK_NEAR(find(result, 30)->probability, 0.1771445719079802612);
    }

    void lambdaZeroIsTheModel() {
        const auto result = interpolate(model, neighbors, with(0.0));
        QCOMPARE(order(result), (std::vector<std::uint32_t>{10, 20, 30}));
        for (const auto& row : result) QCOMPARE(row.probability, row.modelProbability);
        CHECK_NEAR(find(result, 20)->probability, pm20);
        // p_kNN is still reported for inspection.
        CHECK_NEAR(find(result, 20)->knnProbability, pk20);
    }

    void lambdaOneIsTheNeighbours() {
        const auto result = interpolate(model, neighbors, with(1.0));
        // Entity 10, named by no neighbour, gets 0 and comes last.
        QCOMPARE(order(result), (std::vector<std::uint32_t>{20, 30, 10}));
        for (const auto& row : result) QCOMPARE(row.probability, row.knnProbability);
        CHECK_NEAR(find(result, 20)->probability, pk20);
        CHECK_NEAR(find(result, 30)->probability, pk30);
        QCOMPARE(find(result, 10)->probability, 0.0);
        CHECK_NEAR(find(result, 10)->modelProbability, pm10);
    }

    void noNeighboursIsTheModel() {
        const auto result = interpolate(model, {}, KnnSettings::ncbi());
        QCOMPARE(order(result), (std::vector<std::uint32_t>{10, 20, 30}));
        // Not scaled by 1 - lambda: there is nothing to interpolate with.
        CHECK_NEAR(find(result, 10)->probability, pm10);
        CHECK_NEAR(find(result, 20)->probability, pm20);
        CHECK_NEAR(find(result, 30)->probability, pm30);
        for (const auto& row : result) {
            QCOMPARE(row.knnProbability, 0.0);
            QCOMPARE(row.neighbors, std::size_t{0});
            QCOMPARE(row.neighborSimilarity, 0.0f);
        }
    }

    void emptyInput() { QVERIFY(interpolate({}, {}, KnnSettings::ncbi()).empty()); }

    void smallTemperaturesStayFinite() {
        // exp(-0.75 / 0.001) = exp(-750) underflows to 0 in double, and exp(+750) would overflow:
        // a softmax without the maxima subtracted gives 0/0 here.
        const std::vector<EntityScore> scores{{1, -0.75f}, {2, -0.8125f}};
        const std::vector<EntityNeighbor> near2{{2, -0.75f}, {1, -0.875f}};
        const auto result = interpolate(scores, near2, with(0.25, 0.001, 0.001));
        QCOMPARE(order(result), (std::vector<std::uint32_t>{1, 2}));
        for (const auto& row : result) {
            QVERIFY(std::isfinite(row.probability));
            QVERIFY(std::isfinite(row.modelProbability));
            QVERIFY(std::isfinite(row.knnProbability));
        }
        const auto& e1 = *find(result, 1);
        const auto& e2 = *find(result, 2);
        CHECK_NEAR(e1.modelProbability, 1.0);
        CHECK_NEAR(e2.modelProbability, 7.1877817390609886133e-28);  // exp(-62.5) / (1 + exp(-62.5))
        CHECK_NEAR(e1.knnProbability, 5.1664206328378609803e-55);    // exp(-125) / (1 + exp(-125))
        CHECK_NEAR(e2.knnProbability, 1.0);
        CHECK_NEAR(e1.probability, 0.75);
        CHECK_NEAR(e2.probability, 0.25);
        QCOMPARE(e1.neighborSimilarity, -0.875f);  // a negative similarity is kept, not replaced by 0
        // Positive scores the same way: exp(+750) is out of range of double.
        const std::vector<EntityScore> positive{{1, 0.75f}, {2, 0.6875f}};
        const auto sharp = interpolate(positive, {}, with(0.1, 0.001));
        CHECK_NEAR(find(sharp, 1)->probability, 1.0);
        CHECK_NEAR(find(sharp, 2)->probability, 7.1877817390609886133e-28);
    }

    void largeTemperaturesFlatten() {
        const std::vector<EntityScore> scores{{1, 0.75f}, {2, 0.5f}};
        const std::vector<EntityNeighbor> near2{{2, 0.875f}};
        const auto result = interpolate(scores, near2, with(0.1, 1e6, 1e6));
        QCOMPARE(order(result), (std::vector<std::uint32_t>{2, 1}));
        CHECK_NEAR(find(result, 1)->modelProbability, 0.5000000625);
        CHECK_NEAR(find(result, 2)->modelProbability, 0.4999999375);
        CHECK_NEAR(find(result, 2)->knnProbability, 1.0);
        CHECK_NEAR(find(result, 1)->probability, 0.45000005625);
        CHECK_NEAR(find(result, 2)->probability, 0.54999994375);
    }

    void duplicateModelEntriesKeepTheHighestScore() {
        const std::vector<EntityScore> duplicated{{20, 0.5f}, {10, 0.75f}, {30, 0.6875f}, {20, 0.734375f}, {10, 0.25f}};
        const auto result = interpolate(duplicated, neighbors, KnnSettings::ncbi());
        QCOMPARE(order(result), (std::vector<std::uint32_t>{10, 20, 30}));
        QCOMPARE(find(result, 20)->modelScore, 0.734375f);
        QCOMPARE(find(result, 10)->modelScore, 0.75f);
        CHECK_NEAR(find(result, 10)->probability, 0.74285507056339358553);
        CHECK_NEAR(find(result, 20)->probability, 0.20883181913039521023);
        CHECK_NEAR(find(result, 30)->probability, 0.048313110306211204238);
    }

    void tiesByModelScoreThenEntity() {
        // lambda = 1: entities 5, 3, 9 and 7 are named by no neighbour and share p = 0; they follow by
        // model score, and 3 and 9 (equal scores) by entity.
        const std::vector<EntityScore> scores{{9, 0.5f}, {7, 0.25f}, {3, 0.5f}, {5, 0.625f}, {1, 0.125f}};
        const std::vector<EntityNeighbor> near1{{1, 0.5f}};
        const auto byKnn = interpolate(scores, near1, with(1.0));
        QCOMPARE(order(byKnn), (std::vector<std::uint32_t>{1, 5, 3, 9, 7}));
        // Equal scores without neighbours: equal p, entity ascending.
        const std::vector<EntityScore> equal{{8, 0.5f}, {2, 0.5f}, {4, 0.5f}};
        const auto flat = interpolate(equal, {}, KnnSettings::ncbi());
        QCOMPARE(order(flat), (std::vector<std::uint32_t>{2, 4, 8}));
        for (const auto& row : flat) CHECK_NEAR(row.probability, 1.0 / 3.0);
    }

    void neighbourWithoutModelScoreIsAnError() {
        const std::vector<EntityNeighbor> stranger{{20, 0.875f}, {4242, 0.5f}};
        const auto message = errorOf([&] { interpolate(model, stranger, KnnSettings::ncbi()); });
        QVERIFY2(message.find("4242") != std::string::npos, message.c_str());
        QVERIFY_THROWS_EXCEPTION(Error, interpolate({}, stranger, KnnSettings::ncbi()));
    }

    void moreThanKNeighboursIsAnError() {
        const auto message = errorOf([&] { interpolate(model, neighbors, with(0.1, 0.01, 1.0, 2)); });
        QVERIFY2(message.find("3 neighbours") != std::string::npos && message.find("k = 2") != std::string::npos,
                 message.c_str());
        QCOMPARE(interpolate(model, neighbors, with(0.1, 0.01, 1.0, 3)).size(), std::size_t{3});
    }

    void nonFiniteScoresAreErrors() {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        const std::vector<EntityScore> nanScore{{1, 0.5f}, {2, nan}};
        QVERIFY2(errorOf([&] { interpolate(nanScore, {}, KnnSettings::ncbi()); }).find("entity 2") != std::string::npos,
                 "the message names the entity");
        const std::vector<EntityScore> infScore{{1, inf}};
        QVERIFY_THROWS_EXCEPTION(Error, interpolate(infScore, {}, KnnSettings::ncbi()));
        const std::vector<EntityNeighbor> nanNeighbor{{10, nan}};
        QVERIFY_THROWS_EXCEPTION(Error, interpolate(model, nanNeighbor, KnnSettings::ncbi()));
    }

    void invalidSettings_data() {
        QTest::addColumn<double>("lambda");
        QTest::addColumn<double>("beta1");
        QTest::addColumn<double>("beta2");
        QTest::addColumn<qulonglong>("k");
        QTest::addColumn<QString>("named");
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("k 0") << 0.1 << 0.01 << 1.0 << 0ULL << "k must be > 0";
        QTest::newRow("lambda negative") << -0.25 << 0.01 << 1.0 << 4ULL << "-0.25";
        QTest::newRow("lambda above 1") << 1.5 << 0.01 << 1.0 << 4ULL << "1.5";
        QTest::newRow("lambda NaN") << nan << 0.01 << 1.0 << 4ULL << "lambda";
        QTest::newRow("beta1 zero") << 0.1 << 0.0 << 1.0 << 4ULL << "beta1";
        QTest::newRow("beta1 tiny negative") << 0.1 << -1e-9 << 1.0 << 4ULL << "-1e-09";
        QTest::newRow("beta1 infinite") << 0.1 << inf << 1.0 << 4ULL << "beta1";
        QTest::newRow("beta2 negative") << 0.1 << 0.01 << -2.0 << 4ULL << "beta2 must be finite and > 0 (got -2)";
        QTest::newRow("beta2 NaN") << 0.1 << 0.01 << nan << 4ULL << "beta2";
    }
    void invalidSettings() {
        QFETCH(double, lambda);
        QFETCH(double, beta1);
        QFETCH(double, beta2);
        QFETCH(qulonglong, k);
        QFETCH(QString, named);
        const KnnSettings settings = with(lambda, beta1, beta2, static_cast<std::size_t>(k));
        const auto message = errorOf([&] { validate(settings); });
        QVERIFY2(message.find(named.toStdString()) != std::string::npos, message.c_str());
        QVERIFY_THROWS_EXCEPTION(Error, interpolate(model, {}, settings));
    }
};

QTEST_APPLESS_MAIN(TestKnnInterpolation)
#include "test_knn_interpolation.moc"
