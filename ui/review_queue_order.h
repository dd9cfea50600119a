#pragma once
// The GUI's review queue: the project's undecided mentions ordered by the policy of
// core/curation/review_queue.h, from what the curation session's decision log and ranker host
// know -- the active ranker's proposal of each mention (its lead over the second entity, its
// score as the confidence), with a linked run the sparse ranker's proposal as the other linker
// (their disagreement is doubt), and as the reach: with a run, the undecided mentions a
// decision's key would reach in its datastore (RankerHost::datastoreReachCounts, as the
// simulated review of curation/run_review_linker.h counts them); with sparse, or a run over a
// project too large for its n^2 pairs (ModelCandidates::kReachPairMentions), the other undecided
// mentions with the same text, which "Apply to all" offers after a decision.
//
// Deviation from the simulated review: the run without its datastore is not a third linker here
// (the ranker host does not keep its ranking), so the disagreement is with sparse alone.
//
// A mention with any decision in effect (skip included) is out of the queue: the curator looked
// at it. Without proposals (the ranker still building) the queue is empty. In a team project a
// mention that other curators hold every claim of (review_claims.h) is out of the queue too:
// it is theirs; the curator's own claims come from ReviewClaims::claimNext in this order.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "project/curation_decision.h"

namespace linkscope::ui {

class CurationSession;

struct QueuedMention {
    project::MentionKey key;
    double priority = 0.0;
};

/// Every undecided mention of the open project, highest priority first, ties in project order
/// (split, document, offset). O(mentions); the caller recomputes it after decisions.
std::vector<QueuedMention> reviewQueueOf(const CurationSession& session);

/// The best priority of each document's undecided mentions, by (split, PMID): what the
/// Documents dock's "Worth reviewing" filter keeps (above 0) and sorts by.
std::map<std::pair<std::string, std::string>, double> documentPriorities(const std::vector<QueuedMention>& queue);

}  // namespace linkscope::ui
