// Comparing runs: McNemar's test on tables whose p-values are derived by hand, the switch from
// the exact binomial test to the chi-square approximation, bootstrap intervals (determinism with
// a seed, plausible width, coverage on simulated data), and comparisons of mismatched runs.
#include <random>

#include "eval/compare.h"
#include "eval/evaluate.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::eval;
using Bits = std::vector<std::uint8_t>;

namespace {

/// Two runs over n mentions with the given counts of (A right, B right) combinations.
std::pair<Bits, Bits> pairedRuns(std::size_t both, std::size_t onlyA, std::size_t onlyB, std::size_t neither) {
    Bits a, b;
    const auto push = [&](std::size_t count, std::uint8_t x, std::uint8_t y) {
        for (std::size_t i = 0; i < count; ++i) {
            a.push_back(x);
            b.push_back(y);
        }
    };
    push(both, 1, 1);
    push(onlyA, 1, 0);
    push(onlyB, 0, 1);
    push(neither, 0, 0);
    return {a, b};
}

EvalResult resultWithRanks(const std::vector<std::size_t>& ranks, const std::string& document = "D") {
    EvalResult result;
    result.depth = kMinimumDepth;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        MentionOutcome mention;
        mention.document = document;
        mention.start = i * 10;
        mention.end = i * 10 + 5;
        mention.rank = ranks[i];
        mention.strictRank = ranks[i];
        result.mentions.push_back(mention);
    }
    return result;
}

}  // namespace

class TestEvalCompare : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mcnemarExactOnASmallTable() {
        // b = 10, c = 2: n = 12 discordant pairs, X ~ Binomial(12, 1/2).
        // P[X <= 2] = (C(12,0) + C(12,1) + C(12,2)) / 2^12 = (1 + 12 + 66) / 4096 = 79 / 4096,
        // two-sided p = 158 / 4096 = 0.03857421875.
        const auto [a, b] = pairedRuns(70, 10, 2, 18);
        const McNemarResult result = mcnemar(a, b);
        QCOMPARE(result.bothCorrect, std::size_t{70});
        QCOMPARE(result.onlyA, std::size_t{10});
        QCOMPARE(result.onlyB, std::size_t{2});
        QCOMPARE(result.bothWrong, std::size_t{18});
        QVERIFY(result.exact);
        QVERIFY(std::abs(result.pValue - 158.0 / 4096.0) < 1e-12);
        // The statistic is reported too: (|10 - 2| - 1)^2 / 12 = 49 / 12.
        QVERIFY(std::abs(result.statistic - 49.0 / 12.0) < 1e-12);
        // Symmetric in A and B.
        QVERIFY(std::abs(mcnemar(b, a).pValue - result.pValue) < 1e-15);
    }

    void mcnemarChiSquareOnTheSameTable() {
        // Forced approximation: chi2 = 49/12 = 4.083 with one degree of freedom; a chi-square
        // table gives P[chi2_1 > 4.083] = 0.0433.
        const McNemarResult result = mcnemarFromCounts(10, 2, 0);
        QVERIFY(!result.exact);
        QVERIFY(std::abs(result.pValue - 0.0433) < 1e-4);
    }

    void mcnemarSwitchesToChiSquareForManyDiscordantPairs() {
        // 19 + 6 = 25 discordant: no longer below the default threshold of 25.
        QVERIFY(!mcnemarFromCounts(19, 6).exact);
        QVERIFY(mcnemarFromCounts(18, 6).exact);
        // b = 40, c = 20: chi2 = (20 - 1)^2 / 60 = 6.0167, table: p = 0.0142.
        const McNemarResult large = mcnemarFromCounts(40, 20);
        QVERIFY(std::abs(large.statistic - 361.0 / 60.0) < 1e-12);
        QVERIFY(std::abs(large.pValue - 0.0142) < 1e-4);
        // b = 5, c = 15 (exact): 2 * (1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20 = 43400 / 1048576.
        QVERIFY(std::abs(mcnemarFromCounts(5, 15).pValue - 43400.0 / 1048576.0) < 1e-12);
    }

    void mcnemarEdgeCases() {
        const McNemarResult none = mcnemarFromCounts(0, 0);
        QCOMPARE(none.pValue, 1.0);
        QCOMPARE(none.statistic, 0.0);
        QCOMPARE(mcnemarFromCounts(4, 4).pValue, 1.0);  // 2 * P[X <= 4], X ~ B(8, 1/2), is above 1
        // A very lopsided large exact table stays finite and tiny.
        const McNemarResult lopsided = mcnemarFromCounts(300, 0, 1000);
        QVERIFY(lopsided.exact);
        QVERIFY(lopsided.pValue > 0.0 && lopsided.pValue < 1e-80);
        QVERIFY_THROWS_EXCEPTION(Error, mcnemar(Bits{1, 0}, Bits{1}));
    }

    void bootstrapIsDeterministicForASeed() {
        const auto [a, b] = pairedRuns(70, 10, 2, 18);
        BootstrapOptions options;
        options.seed = 7;
        const auto first = bootstrapAccuracy(a, options);
        const auto second = bootstrapAccuracy(a, options);
        QCOMPARE(first.lower, second.lower);
        QCOMPARE(first.upper, second.upper);
        options.seed = 8;
        const auto other = bootstrapAccuracy(a, options);
        QVERIFY(other.lower != first.lower || other.upper != first.upper);
        QCOMPARE(first.estimate, 0.8);
        QCOMPARE(first.resamples, std::size_t{1000});
        QCOMPARE(first.level, 0.95);
    }

    void bootstrapIntervalHasThePlausibleWidth() {
        // 70 of 100 right: the normal approximation gives 0.7 +- 1.96 * sqrt(0.21 / 100) =
        // [0.610, 0.790]; the percentile bootstrap must land close to it.
        const auto [a, b] = pairedRuns(70, 0, 0, 30);
        const auto interval = bootstrapAccuracy(a);
        QCOMPARE(interval.estimate, 0.7);
        QVERIFY2(interval.lower > 0.58 && interval.lower < 0.64, qPrintable(QString::number(interval.lower)));
        QVERIFY2(interval.upper > 0.76 && interval.upper < 0.82, qPrintable(QString::number(interval.upper)));
        // Everything right: no variation at all.
        const auto perfect = bootstrapAccuracy(Bits(50, 1));
        QCOMPARE(perfect.lower, 1.0);
        QCOMPARE(perfect.upper, 1.0);
    }

    void bootstrapCoverageOnSimulatedData() {
        // 200 simulated data sets of 200 Bernoulli(0.7) outcomes: a 95% interval should contain
        // 0.7 about 95% of the time (the percentile bootstrap runs a little narrow for small n).
        std::mt19937_64 simulator(12345);
        BootstrapOptions options;
        options.resamples = 400;
        std::size_t covered = 0;
        constexpr std::size_t kDataSets = 200;
        for (std::size_t d = 0; d < kDataSets; ++d) {
            Bits outcomes;
            for (int i = 0; i < 200; ++i) outcomes.push_back(simulator() % 10 < 7 ? 1 : 0);
            options.seed = d + 1;
            const auto interval = bootstrapAccuracy(outcomes, options);
            QVERIFY(interval.lower <= interval.estimate && interval.estimate <= interval.upper);
            covered += interval.lower <= 0.7 && 0.7 <= interval.upper ? 1 : 0;
        }
        const double coverage = static_cast<double>(covered) / kDataSets;
        QVERIFY2(coverage >= 0.88 && coverage <= 0.99, qPrintable(QString::number(coverage)));
    }

    void bootstrapOfTheDifference() {
        const auto [a, b] = pairedRuns(70, 10, 2, 18);
        const auto difference = bootstrapDifference(a, b);
        QVERIFY(std::abs(difference.estimate - 0.08) < 1e-12);
        QVERIFY(difference.lower <= 0.08 && 0.08 <= difference.upper);
        QVERIFY(difference.lower > -0.05 && difference.upper < 0.2);
        // The same run twice: every resample differs by exactly 0.
        const auto same = bootstrapDifference(a, a);
        QCOMPARE(same.lower, 0.0);
        QCOMPARE(same.upper, 0.0);
        // A always right, B always wrong: the difference is 1 in every resample.
        const auto [right, wrong] = pairedRuns(0, 40, 0, 0);
        const auto total = bootstrapDifference(right, wrong);
        QCOMPARE(total.lower, 1.0);
        QCOMPARE(total.upper, 1.0);
    }

    void bootstrapRejectsBadInput() {
        QVERIFY_THROWS_EXCEPTION(Error, bootstrapAccuracy(Bits{}));
        QVERIFY_THROWS_EXCEPTION(Error, bootstrapDifference(Bits{1, 0}, Bits{1}));
        BootstrapOptions options;
        options.resamples = 0;
        QVERIFY_THROWS_EXCEPTION(Error, bootstrapAccuracy(Bits{1}, options));
        options.resamples = 10;
        options.level = 1.0;
        QVERIFY_THROWS_EXCEPTION(Error, bootstrapAccuracy(Bits{1}, options));
    }

    void compareRunsOfTheSameMentions() {
        // Ranks: A is right at 1 on mentions 0-2, B on mentions 2-3 (rank 3 counts at k = 5 only).
        const EvalResult a = resultWithRanks({1, 1, 1, 0, 2});
        const EvalResult b = resultWithRanks({0, 0, 1, 1, 3});
        const RunComparison at1 = compareRuns(a, b, 1);
        QCOMPARE(at1.mcnemar.onlyA, std::size_t{2});
        QCOMPARE(at1.mcnemar.onlyB, std::size_t{1});
        QCOMPARE(at1.mcnemar.bothCorrect, std::size_t{1});
        QCOMPARE(at1.accuracyA.estimate, 0.6);
        QCOMPARE(at1.accuracyB.estimate, 0.4);
        QVERIFY(std::abs(at1.difference.estimate - 0.2) < 1e-12);
        const RunComparison at5 = compareRuns(a, b, 5);
        QCOMPARE(at5.mcnemar.bothCorrect, std::size_t{2});
        QCOMPARE(at5.mcnemar.onlyA, std::size_t{2});
        QCOMPARE(at5.mcnemar.onlyB, std::size_t{1});
        QCOMPARE(at5.accuracyA.estimate, 0.8);
    }

    void compareRunsOfDifferentMentionsIsAnError() {
        QVERIFY_THROWS_EXCEPTION(Error, compareRuns(resultWithRanks({1, 1}), resultWithRanks({1})));
        try {
            compareRuns(resultWithRanks({1, 1}, "D1"), resultWithRanks({1, 1}, "D2"));
            QFAIL("expected Error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("different mentions") != std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestEvalCompare)
#include "test_eval_compare.moc"
