#pragma once
// Comparing runs: McNemar's test on paired per-mention correctness (as Le & Nguyen 2023 use it
// for significance, after Dror et al. 2018) and percentile bootstrap confidence intervals.
//
// McNemar: b = mentions A gets right and B wrong, c = the reverse. With few discordant pairs
// (b + c < exactBelow, default 25) the p-value is the exact two-sided binomial test,
// min(1, 2 * P[X <= min(b, c)]) with X ~ Binomial(b + c, 1/2); otherwise the chi-square
// statistic with (Edwards') continuity correction, (|b - c| - 1)^2 / (b + c), one degree of
// freedom, p = erfc(sqrt(statistic / 2)). Both are what statsmodels' mcnemar(exact=True) and
// mcnemar(exact=False, correction=True) compute. No discordant pair at all gives p = 1.
//
// Bootstrap: B resamples of the mentions with replacement (paired for a difference: the same
// mentions for both runs), the statistic recomputed on each, and the interval's ends taken as
// the (1-level)/2 and (1+level)/2 quantiles of the B values with linear interpolation (numpy's
// default percentile). Resampling draws from std::mt19937_64 seeded with `seed` through
// rejection sampling (not std::uniform_int_distribution, whose output differs between standard
// libraries), so a seed gives the same interval everywhere.
#include <cstddef>
#include <cstdint>
#include <span>

namespace linkscope::eval {

struct EvalResult;

struct McNemarResult {
    std::size_t bothCorrect = 0;
    std::size_t onlyA = 0;  ///< b
    std::size_t onlyB = 0;  ///< c
    std::size_t bothWrong = 0;
    bool exact = false;      ///< the binomial test was used
    double statistic = 0.0;  ///< chi-square statistic (also reported when exact)
    double pValue = 1.0;
};

/// McNemar's test on two equally long 0/1 vectors (throws Error when the lengths differ).
McNemarResult mcnemar(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, std::size_t exactBelow = 25);
/// The same from the discordant counts alone.
McNemarResult mcnemarFromCounts(std::size_t onlyA, std::size_t onlyB, std::size_t exactBelow = 25);

/// The most resamples a bootstrap draws. Its values are held in memory (8 bytes each) and each
/// resample draws one index per mention; percentile intervals are stable to a few decimals from
/// about 10^4 resamples on, so 10^6 is far beyond any use and keeps both finite.
inline constexpr std::size_t kMaxBootstrapResamples = 1'000'000;

struct BootstrapOptions {
    std::size_t resamples = 1000;
    double level = 0.95;
    std::uint64_t seed = 20240101;
};

struct ConfidenceInterval {
    double estimate = 0.0;  ///< the statistic on the data itself
    double lower = 0.0;
    double upper = 0.0;
    double level = 0.0;
    std::size_t resamples = 0;
};

/// Interval for the accuracy (mean of the 0/1 vector). Throws Error for empty input, zero
/// resamples or more than kMaxBootstrapResamples, or a level outside (0, 1).
ConfidenceInterval bootstrapAccuracy(std::span<const std::uint8_t> correct, const BootstrapOptions& options = {});
/// Interval for accuracy(a) - accuracy(b), resampling the mentions in pairs.
ConfidenceInterval bootstrapDifference(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                                       const BootstrapOptions& options = {});

/// Everything that compares two runs at one cut-off.
struct RunComparison {
    std::size_t k = 1;
    bool strict = false;
    McNemarResult mcnemar;
    ConfidenceInterval accuracyA;
    ConfidenceInterval accuracyB;
    ConfidenceInterval difference;  ///< A - B
};

/// Compares two evaluations of the same mentions (same documents and offsets in the same
/// order; throws Error otherwise) at cut-off k.
RunComparison compareRuns(const EvalResult& a, const EvalResult& b, std::size_t k = 1, bool strict = false,
                          const BootstrapOptions& options = {});

}  // namespace linkscope::eval
