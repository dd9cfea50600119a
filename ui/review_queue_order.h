#pragma once
// The GUI's review queue (issue 18): the project's undecided mentions ordered by the policy of
// core/curation/review_queue.h, from what the curation session knows -- the active ranker's
// proposal of each mention (its lead over the second entity, its score as the confidence), with a
// linked run the sparse ranker's proposal as the other linker (their disagreement is doubt), and,
// as the reach, the other undecided mentions with the same text, which "Apply to all" offers
// after a decision.
//
// Deviation from the simulated review (curation/run_review_linker.h): with a run, the reach there
// is the run datastore's (the mentions whose nearest keys a decision's key would enter), which
// needs every pair of mention vectors once (n^2: seconds on NCBI Disease, hours at MedMentions'
// 350,000 mentions); the GUI counts the same-text mentions instead, which a context-free method's
// key reaches anyway (cosine 1), and shows the datastore's reach of the selected mention in the
// Candidates dock (CurationSession::datastoreReach). The run without its datastore is not a
// third linker here: the session does not keep its ranking.
//
// A mention with any decision in effect (skip included) is out of the queue: the curator looked
// at it. Without proposals (the ranker still building) the queue is empty.
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
