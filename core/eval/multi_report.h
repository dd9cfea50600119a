#pragma once
// A comparison of many runs (multi_compare.h) as text and as JSON, for `linkscope-cli compare`
// with more than two files.
//
// JSON (one object):
//   "k", "strict", "alpha", "mentions", "correction": "holm",
//   "runs": [{"name", "correct", "accuracy": interval}],
//   "pairs": [{"a", "b" (run indexes), "name_a", "name_b", "mcnemar": {"both_correct", "only_a",
//             "only_b", "both_wrong", "exact", "statistic", "p"}, "p_adjusted", "significant",
//             "difference": interval of acc(a) - acc(b)}],
//   "p_adjusted": N x N matrix of Holm-adjusted p-values (symmetric, null on the diagonal),
//   "groups": [{"name", "mentions", "correct": [per run], "accuracy": [interval per run]}],
// where an interval is {"estimate", "lower", "upper", "level", "resamples"}.
//
// Text: the runs table (numbered [1] .. [N], the numbers the matrix and the group rows use),
// the matrix of adjusted p-values with significant cells marked '*', and the group rows.
#include <string>

namespace linkscope::eval {

struct MultiComparison;

std::string multiComparisonJson(const MultiComparison& comparison);
std::string formatMultiComparison(const MultiComparison& comparison);

}  // namespace linkscope::eval
