#pragma once
// Comparing many runs of the same mentions at once: the five methods, the sparse
// baseline and any saved per-mention files in one table instead of one A/B round per pair.
//
// For N runs at cut-off k (lenient or strict correctness, as compare.h):
//   - per run: accuracy with a percentile bootstrap interval (compare.h's bootstrapAccuracy,
//     same seed for every run, so a run's interval does not depend on which others are listed);
//   - per pair i < j: McNemar's test (compare.h: exact binomial below 25 discordant mentions,
//     chi-square with continuity correction above), the paired bootstrap interval of
//     acc(i) - acc(j), and the p-value adjusted for the m = N(N-1)/2 tests by Holm's step-down
//     procedure (Holm 1979), which controls the family-wise error rate at alpha without
//     assuming the tests independent (they are not: every pair shares runs):
//         sort the p-values p_(1) <= ... <= p_(m);
//         adjusted p_(i) = max over j <= i of min(1, (m - j + 1) * p_(j)),
//     the running maximum keeping the adjusted values in the order of the raw ones. A pair is
//     significant when its adjusted p < alpha (default 0.05). Equal raw p-values keep their
//     input order in the sort (stable), which leaves the adjusted values the same anyway.
//     This is statsmodels' multipletests(method="holm") and R's p.adjust(method="holm").
//   - per mention group (seen / unseen, homonym-affected, a mention type, ...; the caller says
//     which mentions belong to it, mention_groups.h builds the usual ones): every run's accuracy
//     on the group's mentions with a bootstrap interval over them. Groups are not tested
//     against each other: they are descriptive rows, as in BELHD's and Le & Nguyen's tables.
// With N = 2 the single pair is exactly compareRuns(run 0, run 1) (Holm with m = 1 changes
// nothing).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "eval/compare.h"

namespace linkscope::eval {

struct EvalResult;

/// Holm's step-down adjustment of m p-values (see the header comment), in input order.
/// Throws Error for a p-value outside [0, 1] or NaN.
std::vector<double> holmAdjust(std::span<const double> pValues);

/// One run to compare: a name for the tables and its evaluation (not owned; must outlive the call).
struct NamedRun {
    std::string name;
    const EvalResult* result = nullptr;
};

/// A set of mentions: members[i] != 0 when mention i (query order) belongs to it.
struct MentionGroup {
    std::string name;
    std::vector<std::uint8_t> members;
};

struct MultiComparisonOptions {
    std::size_t k = 1;
    bool strict = false;
    double alpha = 0.05;  ///< family-wise error rate the "significant" flags use
    std::size_t exactBelow = 25;
    BootstrapOptions bootstrap;
};

struct RunSummary {
    std::string name;
    std::size_t correct = 0;
    ConfidenceInterval accuracy;
};

struct PairComparison {
    std::size_t first = 0;  ///< run indexes, first < second
    std::size_t second = 0;
    McNemarResult mcnemar;          ///< onlyA: first right, second wrong
    ConfidenceInterval difference;  ///< acc(first) - acc(second)
    double adjustedP = 1.0;         ///< Holm over every pair
    bool significant = false;       ///< adjustedP < alpha
};

struct GroupRow {
    std::string name;
    std::size_t mentions = 0;
    /// Per run (same order as MultiComparison::runs); an empty group has all-zero intervals.
    std::vector<ConfidenceInterval> accuracy;
    std::vector<std::size_t> correct;
};

struct MultiComparison {
    std::size_t k = 1;
    bool strict = false;
    double alpha = 0.05;
    std::size_t mentions = 0;
    std::vector<RunSummary> runs;
    std::vector<PairComparison> pairs;  ///< (0,1), (0,2), ..., (1,2), ...: N(N-1)/2 of them
    std::vector<GroupRow> groups;

    /// The pair of runs i and j in either order (throws Error for i == j or out of range).
    const PairComparison& pair(std::size_t i, std::size_t j) const;
    /// Holm-adjusted p of runs i and j (symmetric; 1 on the diagonal).
    double adjustedP(std::size_t i, std::size_t j) const;
};

/// Compares the runs (at least two; all on the same mentions, same documents and offsets in the
/// same order) at options.k. Throws Error naming the runs that differ, for fewer than two runs,
/// a null result, a group whose size is not the number of mentions, or alpha outside (0, 1).
MultiComparison compareManyRuns(std::span<const NamedRun> runs, std::span<const MentionGroup> groups = {},
                                const MultiComparisonOptions& options = {});

}  // namespace linkscope::eval
