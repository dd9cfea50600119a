#include "eval/multi_compare.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "eval/evaluate.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

std::string describeMention(const MentionOutcome& m) {
    return m.document + " " + std::to_string(m.start) + "-" + std::to_string(m.end);
}

// Every run must rank the same mentions: the pairs are paired tests.
void checkSameMentions(std::span<const NamedRun> runs) {
    const EvalResult& first = *runs.front().result;
    for (std::size_t r = 1; r < runs.size(); ++r) {
        const EvalResult& other = *runs[r].result;
        if (other.mentions.size() != first.mentions.size())
            throw Error("comparing runs of different lengths: " + runs.front().name + " has " +
                        std::to_string(first.mentions.size()) + " mentions, " + runs[r].name + " " +
                        std::to_string(other.mentions.size()));
        for (std::size_t i = 0; i < first.mentions.size(); ++i) {
            const MentionOutcome& x = first.mentions[i];
            const MentionOutcome& y = other.mentions[i];
            if (x.document != y.document || x.start != y.start || x.end != y.end)
                throw Error("comparing runs of different mentions: mention " + std::to_string(i + 1) + " is " +
                            describeMention(x) + " in " + runs.front().name + " and " + describeMention(y) + " in " +
                            runs[r].name);
        }
    }
}

std::size_t countCorrect(std::span<const std::uint8_t> correct) {
    return static_cast<std::size_t>(std::count_if(correct.begin(), correct.end(), [](auto v) { return v != 0; }));
}

}  // namespace

std::vector<double> holmAdjust(std::span<const double> pValues) {
    for (const double p : pValues)
        if (!(p >= 0.0 && p <= 1.0)) throw Error("Holm adjustment: p-value " + std::to_string(p) + " outside [0, 1]");
    const std::size_t m = pValues.size();
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pValues[a] < pValues[b]; });
    std::vector<double> adjusted(m, 1.0);
    double runningMax = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
        const double scaled = std::min(1.0, static_cast<double>(m - i) * pValues[order[i]]);
        runningMax = std::max(runningMax, scaled);
        adjusted[order[i]] = runningMax;
    }
    return adjusted;
}

const PairComparison& MultiComparison::pair(std::size_t i, std::size_t j) const {
    if (i == j || i >= runs.size() || j >= runs.size())
        throw Error("no comparison of runs " + std::to_string(i) + " and " + std::to_string(j) + " among " +
                    std::to_string(runs.size()));
    const std::size_t a = std::min(i, j), b = std::max(i, j);
    // Pairs are listed row by row of the upper triangle: (a, b) follows the a rows above it.
    const std::size_t n = runs.size();
    const std::size_t index = a * n - a * (a + 1) / 2 + (b - a - 1);
    return pairs.at(index);
}

double MultiComparison::adjustedP(std::size_t i, std::size_t j) const { return i == j ? 1.0 : pair(i, j).adjustedP; }

MultiComparison compareManyRuns(std::span<const NamedRun> runs, std::span<const MentionGroup> groups,
                                const MultiComparisonOptions& options) {
    if (runs.size() < 2) throw Error("comparing runs: at least two are needed, got " + std::to_string(runs.size()));
    for (const NamedRun& run : runs)
        if (!run.result) throw Error("comparing runs: " + run.name + " has no result");
    if (!(options.alpha > 0.0 && options.alpha < 1.0)) throw Error("comparing runs: alpha must lie in (0, 1)");
    checkSameMentions(runs);
    const std::size_t n = runs.front().result->mentions.size();
    for (const MentionGroup& group : groups)
        if (group.members.size() != n)
            throw Error("comparing runs: group \"" + group.name + "\" covers " + std::to_string(group.members.size()) +
                        " mentions, the runs " + std::to_string(n));

    MultiComparison out;
    out.k = options.k;
    out.strict = options.strict;
    out.alpha = options.alpha;
    out.mentions = n;
    std::vector<std::vector<std::uint8_t>> correct;
    correct.reserve(runs.size());
    for (const NamedRun& run : runs) {
        correct.push_back(correctness(*run.result, options.k, options.strict));
        RunSummary summary;
        summary.name = run.name;
        summary.correct = countCorrect(correct.back());
        if (n > 0) summary.accuracy = bootstrapAccuracy(correct.back(), options.bootstrap);
        out.runs.push_back(std::move(summary));
    }

    std::vector<double> pValues;
    for (std::size_t i = 0; i < runs.size(); ++i)
        for (std::size_t j = i + 1; j < runs.size(); ++j) {
            PairComparison pair;
            pair.first = i;
            pair.second = j;
            pair.mcnemar = mcnemar(correct[i], correct[j], options.exactBelow);
            if (n > 0) pair.difference = bootstrapDifference(correct[i], correct[j], options.bootstrap);
            pValues.push_back(pair.mcnemar.pValue);
            out.pairs.push_back(pair);
        }
    const std::vector<double> adjusted = holmAdjust(pValues);
    for (std::size_t p = 0; p < out.pairs.size(); ++p) {
        out.pairs[p].adjustedP = adjusted[p];
        out.pairs[p].significant = adjusted[p] < options.alpha;
    }

    for (const MentionGroup& group : groups) {
        GroupRow row;
        row.name = group.name;
        row.mentions = countCorrect(group.members);
        for (const auto& runCorrect : correct) {
            std::vector<std::uint8_t> inGroup;
            inGroup.reserve(row.mentions);
            for (std::size_t i = 0; i < n; ++i)
                if (group.members[i] != 0) inGroup.push_back(runCorrect[i]);
            row.correct.push_back(countCorrect(inGroup));
            row.accuracy.push_back(inGroup.empty() ? ConfidenceInterval{}
                                                   : bootstrapAccuracy(inGroup, options.bootstrap));
        }
        out.groups.push_back(std::move(row));
    }
    return out;
}

}  // namespace linkscope::eval
