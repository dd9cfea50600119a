#include "eval/compare.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluate.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

/// P[X <= m] for X ~ Binomial(n, 1/2), summed in log space so that large n does not overflow.
double binomialHalfCdf(std::size_t m, std::size_t n) {
    const double logHalfPower = -static_cast<double>(n) * std::log(2.0);
    const double logNFactorial = std::lgamma(static_cast<double>(n) + 1.0);
    double sum = 0.0;
    for (std::size_t i = 0; i <= m && i <= n; ++i)
        sum += std::exp(logNFactorial - std::lgamma(static_cast<double>(i) + 1.0) -
                        std::lgamma(static_cast<double>(n - i) + 1.0) + logHalfPower);
    return std::min(1.0, sum);
}

double mean(std::span<const std::uint8_t> values) {
    std::size_t sum = 0;
    for (const auto v : values) sum += v != 0 ? 1 : 0;
    return static_cast<double>(sum) / static_cast<double>(values.size());
}

/// Uniform index in [0, n) from the generator's raw output: the low values that would make
/// `r % n` favour small indexes are rejected.
std::size_t uniformIndex(std::mt19937_64& generator, std::size_t n) {
    const std::uint64_t bound = n;
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod n
    std::uint64_t r = generator();
    while (r < threshold) r = generator();
    return static_cast<std::size_t>(r % bound);
}

/// Linear-interpolation quantile of sorted values (numpy's default percentile).
double quantile(const std::vector<double>& sorted, double q) {
    const double position = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double weight = position - static_cast<double>(below);
    return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

void checkOptions(const BootstrapOptions& options) {
    if (options.resamples == 0) throw Error("bootstrap: the number of resamples must be positive");
    if (options.resamples > kMaxBootstrapResamples)
        throw Error("bootstrap: " + std::to_string(options.resamples) + " resamples is more than the maximum of " +
                    std::to_string(kMaxBootstrapResamples));
    if (!(options.level > 0.0 && options.level < 1.0))
        throw Error("bootstrap: the confidence level must lie in (0, 1)");
}

/// Bootstrap of a statistic of the resampled indexes.
template <class Statistic>
ConfidenceInterval bootstrap(std::size_t n, double estimate, const BootstrapOptions& options, Statistic&& statistic) {
    checkOptions(options);
    if (n == 0) throw Error("bootstrap: no mentions to resample");
    std::mt19937_64 generator(options.seed);
    std::vector<double> values;
    values.reserve(options.resamples);
    std::vector<std::size_t> sample(n);
    for (std::size_t b = 0; b < options.resamples; ++b) {
        for (auto& index : sample) index = uniformIndex(generator, n);
        values.push_back(statistic(sample));
    }
    std::sort(values.begin(), values.end());
    ConfidenceInterval interval;
    interval.estimate = estimate;
    interval.level = options.level;
    interval.resamples = options.resamples;
    interval.lower = quantile(values, (1.0 - options.level) / 2.0);
    interval.upper = quantile(values, (1.0 + options.level) / 2.0);
    return interval;
}

void checkSameLength(std::size_t a, std::size_t b) {
    if (a != b)
        throw Error("comparing runs of different lengths: " + std::to_string(a) + " and " + std::to_string(b) +
                    " mentions");
}

}  // namespace

McNemarResult mcnemarFromCounts(std::size_t onlyA, std::size_t onlyB, std::size_t exactBelow) {
    McNemarResult result;
    result.onlyA = onlyA;
    result.onlyB = onlyB;
    const std::size_t discordant = onlyA + onlyB;
    if (discordant == 0) return result;  // nothing differs: statistic 0, p 1
    const double difference = std::abs(static_cast<double>(onlyA) - static_cast<double>(onlyB)) - 1.0;
    result.statistic = difference * difference / static_cast<double>(discordant);
    result.exact = discordant < exactBelow;
    result.pValue = result.exact ? std::min(1.0, 2.0 * binomialHalfCdf(std::min(onlyA, onlyB), discordant))
                                 : std::erfc(std::sqrt(result.statistic / 2.0));
    return result;
}

McNemarResult mcnemar(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, std::size_t exactBelow) {
    checkSameLength(a.size(), b.size());
    std::size_t both = 0, onlyA = 0, onlyB = 0, neither = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool x = a[i] != 0, y = b[i] != 0;
        (x ? (y ? both : onlyA) : (y ? onlyB : neither)) += 1;
    }
    McNemarResult result = mcnemarFromCounts(onlyA, onlyB, exactBelow);
    result.bothCorrect = both;
    result.bothWrong = neither;
    return result;
}

ConfidenceInterval bootstrapAccuracy(std::span<const std::uint8_t> correct, const BootstrapOptions& options) {
    if (correct.empty()) throw Error("bootstrap: no mentions to resample");
    return bootstrap(correct.size(), mean(correct), options, [&](const std::vector<std::size_t>& sample) {
        std::size_t hits = 0;
        for (const auto i : sample) hits += correct[i] != 0 ? 1 : 0;
        return static_cast<double>(hits) / static_cast<double>(sample.size());
    });
}

ConfidenceInterval bootstrapDifference(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                                       const BootstrapOptions& options) {
    checkSameLength(a.size(), b.size());
    if (a.empty()) throw Error("bootstrap: no mentions to resample");
    return bootstrap(a.size(), mean(a) - mean(b), options, [&](const std::vector<std::size_t>& sample) {
        long long difference = 0;
        for (const auto i : sample) difference += (a[i] != 0 ? 1 : 0) - (b[i] != 0 ? 1 : 0);
        return static_cast<double>(difference) / static_cast<double>(sample.size());
    });
}

RunComparison compareRuns(const EvalResult& a, const EvalResult& b, std::size_t k, bool strict,
                          const BootstrapOptions& options) {
    checkSameLength(a.mentions.size(), b.mentions.size());
    for (std::size_t i = 0; i < a.mentions.size(); ++i) {
        const auto& x = a.mentions[i];
        const auto& y = b.mentions[i];
        if (x.document != y.document || x.start != y.start || x.end != y.end)
            throw Error("comparing runs of different mentions: mention " + std::to_string(i + 1) + " is " + x.document +
                        " " + std::to_string(x.start) + "-" + std::to_string(x.end) + " in one run and " + y.document +
                        " " + std::to_string(y.start) + "-" + std::to_string(y.end) + " in the other");
    }
    const auto correctA = correctness(a, k, strict);
    const auto correctB = correctness(b, k, strict);
    RunComparison comparison;
    comparison.k = k;
    comparison.strict = strict;
    comparison.mcnemar = mcnemar(correctA, correctB);
    if (!correctA.empty()) {
        comparison.accuracyA = bootstrapAccuracy(correctA, options);
        comparison.accuracyB = bootstrapAccuracy(correctB, options);
        comparison.difference = bootstrapDifference(correctA, correctB, options);
    }
    return comparison;
}

}  // namespace linkscope::eval
