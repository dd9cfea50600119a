#pragma once
// Which mentions a decision on each mention would reach through a kNN datastore, for every
// mention at once (the review queue's reach with a run): the pairs (t, u) whose cosine
// is at least u's k-th nearest key's, u != t. One blocked matrix product over the unit mention
// vectors (LibTorch's BLAS), O(n^2 d) in time and O(pairs) in memory: quadratic in the mentions,
// so the caller bounds n (model_candidates.h; benchmarks/model_linking times the reach pass).
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "util/progress.h"

namespace linkscope::curation {

/// Per row t of `units` (row-major, `dimension` values each, normalized), the rows u != t with
/// dot(t, u) >= thresholds[u] - tie, ascending, with that cosine. progress: "Finding what each
/// decision reaches"; Cancelled.
std::vector<std::vector<std::pair<std::uint32_t, float>>> pairsAboveThresholds(std::span<const float> units,
                                                                               std::size_t dimension,
                                                                               std::span<const float> thresholds,
                                                                               float tie,
                                                                               const ProgressSink* progress = nullptr);

}  // namespace linkscope::curation
