#pragma once
// The review queue: which undecided mention is most worth a curator's look next.
// INCEpTION orders suggestions by uncertainty; a curation tool that also feeds decisions back
// (the kNN datastore, "apply to all identical mentions") should weigh what a decision fixes
// beyond the mention itself, so the policy is an expected number of mentions fixed per decision:
//
//   priority(m) = doubt(m) * (1 + reachWeight * reach(m))
//
//   doubt(m)  in [0, 1], how likely the proposal is wrong, from three signals of the linkers:
//               sureness = min(margin / marginScale, 1) * confidence^confidenceWeight, where
//                   margin is the lead of the top entity over the second in the primary
//                   linker's units (a tie, e.g. a name shared by two entities, is no sureness; a
//                   lead of marginScale or more, full) and confidence the linker's own [0, 1]
//                   score of its top entity (sparse TF-IDF: the cosine of the closest name, low
//                   when no KB name is spelt like the mention; kNN: p), 1 when it has none;
//               disagreement = the share of the other linkers of the project (sparse, a run
//                   alone, a run with its datastore: whichever exist) whose top entity differs
//                   from the primary's (0 when there is no other linker);
//             doubt = (1 - w) * (1 - sureness) + w * disagreement with w = disagreementWeight
//             when another linker exists, else 1 - sureness alone.
//   reach(m)  how many other undecided mentions the decision on m can change: those with the
//             same surface form when "apply to all" is offered, and for a run with a datastore
//             the mentions whose nearest keys the new key would enter. Before the decision its
//             entity is unknown, so reach counts what the decision CAN change (an upper bound).
//
// Ties go to project order (the smaller index), so the queue is deterministic. The queue is
// plain data in, order out: the GUI and the simulated curation (review_walk.h) compute the
// signals from their linkers and call the same functions, so both follow one policy.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace linkscope::curation {

/// What the linkers say about one undecided mention.
struct ReviewSignals {
    std::string proposal;             ///< the primary linker's top entity ("" when nothing was ranked)
    double margin = 0.0;              ///< its lead over the second entity, in the primary linker's units
    double confidence = 1.0;          ///< the primary linker's [0, 1] score of its top entity (1: none)
    std::vector<std::string> others;  ///< the other linkers' top entities (empty: no other linker)
    std::size_t reach = 0;            ///< other undecided mentions the decision can change (see the header)
};

struct ReviewPolicy {
    /// The lead at which the margin stops adding doubt, in cosine or probability units. 0.2
    /// was chosen on NCBI Disease dev with the sparse ranker (0.1 to 1.0 tried: 0.2 and above
    /// reach 0.98 with the fewest decisions; docs/results.md), and checked on its test split.
    double marginScale = 0.2;
    double disagreementWeight = 0.5;
    /// The exponent of the confidence in the sureness (0: the confidence is not read).
    double confidenceWeight = 1.0;
    /// What one reached mention weighs against the mention itself: priority = doubt * (1 +
    /// reachWeight * reach) (0: the reach is not read). 0.5 was chosen on NCBI Disease dev with
    /// a trained triplet run and its kNN datastore, without "apply to all" (0, 0.25, 0.5, 1, 2
    /// tried; tools/review_tables.py, docs/results.md), and checked on its test split.
    double reachWeight = 0.5;
};

/// doubt(m) of the header, in [0, 1]. A mention with no proposal is full doubt.
double reviewDoubt(const ReviewSignals& signals, const ReviewPolicy& policy = {});
/// doubt(m) * (1 + reachWeight * reach(m)).
double reviewPriority(const ReviewSignals& signals, const ReviewPolicy& policy = {});

/// The undecided mentions (decided[i] == 0) by priority, highest first, ties in index order.
/// decided may be empty (nothing decided); otherwise it has one entry per mention.
std::vector<std::size_t> reviewOrder(std::span<const ReviewSignals> mentions, std::span<const std::uint8_t> decided,
                                     const ReviewPolicy& policy = {});
/// The first of reviewOrder() without sorting everything; unset when every mention is decided.
std::optional<std::size_t> nextForReview(std::span<const ReviewSignals> mentions, std::span<const std::uint8_t> decided,
                                         const ReviewPolicy& policy = {});

/// For each mention, how many OTHER undecided mentions have the same surface key (the reach
/// of "apply to all identical mentions"); 0 for a decided mention. Keys are compared as given:
/// the caller normalizes them (case, spacing) as its "identical" means.
std::vector<std::size_t> sameSurfaceReach(std::span<const std::string> surfaces, std::span<const std::uint8_t> decided);

}  // namespace linkscope::curation
