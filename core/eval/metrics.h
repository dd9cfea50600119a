#pragma once
// Accuracy counts of a group of mentions at every cut-off k = 1 .. depth, kept as counts so that
// groups can be merged and figures reported exactly.
//   acc@k         mentions whose every part has a correct entry among its top k (BioSyn's
//                 Acc@k; a part is correct when an entry's ids meet the gold ids);
//   strict acc@k  the same with strict correctness (an entry naming a non-gold entity is wrong,
//                 so an unresolved homonym counts wrong; BELHD);
//   recall@k      gold entities found among the ids of the top k entries of the mention's parts,
//                 over all gold entities (Le & Nguyen's candidate recall, counted per entity so
//                 that a composite mention with one part found counts half).
#include <cstddef>
#include <vector>

namespace linkscope::eval {

struct GroupMetrics {
    std::size_t mentions = 0;
    std::size_t goldIds = 0;
    std::vector<std::size_t> hits;        ///< hits[k-1]: mentions correct at k
    std::vector<std::size_t> strictHits;  ///< hits[k-1]: mentions strictly correct at k
    std::vector<std::size_t> goldHits;    ///< goldHits[k-1]: gold ids found within the top k

    explicit GroupMetrics(std::size_t depth = 0) : hits(depth, 0), strictHits(depth, 0), goldHits(depth, 0) {}

    std::size_t depth() const noexcept { return hits.size(); }
    /// Fractions in [0, 1]; 0 for an empty group; k beyond the depth reads as the depth.
    double accuracy(std::size_t k) const noexcept { return fraction(hits, k, mentions); }
    double strictAccuracy(std::size_t k) const noexcept { return fraction(strictHits, k, mentions); }
    double recall(std::size_t k) const noexcept { return fraction(goldHits, k, goldIds); }

    /// Counts one mention whose first correct rank is `rank` (1-based, 0 = none within the
    /// depth), first strictly correct rank `strictRank`, and whose gold ids were first found at
    /// `goldRanks` (same convention).
    void add(std::size_t rank, std::size_t strictRank, const std::vector<std::size_t>& goldRanks);

private:
    static double fraction(const std::vector<std::size_t>& counts, std::size_t k, std::size_t total) noexcept;
};

}  // namespace linkscope::eval
