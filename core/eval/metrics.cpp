#include "eval/metrics.h"

#include <algorithm>

namespace linkscope::eval {
namespace {
// Adds one to counts[r-1 ..]: found at rank r means found at every k >= r.
void countFrom(std::vector<std::size_t>& counts, std::size_t rank) {
    if (rank == 0 || rank > counts.size()) return;
    for (std::size_t k = rank - 1; k < counts.size(); ++k) ++counts[k];
}
}  // namespace

void GroupMetrics::add(std::size_t rank, std::size_t strictRank, const std::vector<std::size_t>& goldRanks) {
    ++mentions;
    countFrom(hits, rank);
    countFrom(strictHits, strictRank);
    goldIds += goldRanks.size();
    for (const std::size_t goldRank : goldRanks) countFrom(goldHits, goldRank);
}

double GroupMetrics::fraction(const std::vector<std::size_t>& counts, std::size_t k, std::size_t total) noexcept {
    if (total == 0 || counts.empty() || k == 0) return 0.0;
    const std::size_t at = std::min(k, counts.size()) - 1;
    return static_cast<double>(counts[at]) / static_cast<double>(total);
}

}  // namespace linkscope::eval
