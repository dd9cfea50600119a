#pragma once
// What `simulate-curation --project ... --curator ...` prints: the counts of one simulated
// curator (simulated_curator.h) as one JSON object (--json) or a few lines of text.
#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "simulated_curator.h"

namespace linkscope::cli {

/// The q-quantile (0 <= q <= 1) of the values by the nearest rank; 0 for none.
double nearestRankQuantile(std::span<const double> values, double q);

/// The report: curator, login, project mode, counts (decided, corrections, conflicts,
/// reconnects, recovered commits, decisions seen from others), the pace (seconds, decisions per
/// second), the commit latency, the latency until another curator's decision was read and until it
/// had moved this curator's linker and queue (p50, p99, max, in milliseconds), every decision
/// stored (split, document, start, end, link, commit_ms, committed_at_ms) and every other
/// curator's decision received live (split, document, start, end, login, reranked_at_ms: set
/// beside that curator's committed_at_ms, the time from its commit to the re-ranked queue).
nlohmann::json simulatedCuratorJson(const SimulatedCuratorResult& result, const std::string& linking,
                                    const std::string& project);

/// The same in words, without the list of decisions.
std::string simulatedCuratorText(const SimulatedCuratorResult& result, const std::string& linking,
                                 const std::string& project);

}  // namespace linkscope::cli
