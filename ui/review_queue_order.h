#pragma once
// The GUI's review queue (issue 18): the project's undecided mentions ordered by the policy of
// core/curation/review_queue.h, from what the curation session knows -- the active ranker's
// proposal of each mention (its lead over the second entity, its score as the confidence) and,
// as the reach, the other undecided mentions with the same text, which "Apply to all" offers
// after a decision. What the GUI does not read yet: the disagreement of a linked run with the
// sparse ranker, and a run datastore's reach (the simulated review does not use them either).
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
