#pragma once
// The simulated curation at mention level: a curator reviews one mention at a time,
// either in document order (file order, as Linkscope walked before the review queue) or by the
// review queue (review_queue.h), re-prioritised after every decision. A decision is the mention's
// gold link: an accept when the proposal was already right, a correction otherwise. The linker
// gets every decision as the GUI gives it (ReviewLinker::decide: for a run with a datastore, a
// key as in feedback_loop.h; nothing for sparse TF-IDF, which does not learn).
//
// "Apply to all identical mentions" (applyToAll): the GUI offers it after each accept, correct or
// NIL, for the other undecided mentions with the same text whose link in effect differs from the
// decision; with applyToAll the simulated curator always clicks it, so those mentions get the
// same link (right or wrong for them: a surface form may name different entities in different
// documents). It counts as part of the one decision, as it is one click after the decision in
// the GUI; the step records how many mentions it decided.
//
// After each decision the step holds the accuracy of the WHOLE split: decided mentions counted
// at their decision, the others at their current proposal. Correctness is the lenient rule of
// eval/gold_agreement.h: every '|'-separated id of the link is among the mention's gold ids.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "curation/review_queue.h"
#include "util/progress.h"

namespace linkscope::curation {

/// One mention of the walk, in document order.
struct ReviewMention {
    std::string document;
    std::string surface;            ///< what "identical mentions" compares (normalized by the caller)
    std::vector<std::string> gold;  ///< gold entity ids (non-empty)
};

/// What the walk links with: every mention's current proposal, and the decisions fed back.
class ReviewLinker {
public:
    virtual ~ReviewLinker() = default;
    ReviewLinker() = default;
    ReviewLinker(const ReviewLinker&) = delete;
    ReviewLinker& operator=(const ReviewLinker&) = delete;

    virtual std::size_t size() const = 0;
    /// The mention's signals now (reach left 0: the walk adds it). The proposal of a mention of
    /// several parts is the parts' top entities joined by '|'.
    virtual ReviewSignals signals(std::size_t mention) const = 0;
    /// How many other undecided mentions a decision on `mention` can change through what the
    /// linker learns from it (a run's datastore reach); 0 for a linker that does not learn.
    /// exceptIdentical: leave out those with the same surface (counted apart when "apply to
    /// all" decides them anyway).
    virtual std::size_t reach(std::size_t mention, std::span<const std::uint8_t> decided, bool exceptIdentical) const;
    /// Feeds a decision (the decided ids; accept: the proposal was taken as it was). Returns the
    /// mentions whose signals may have changed; none for a linker that does not learn.
    virtual std::vector<std::size_t> decide(std::size_t mention, std::span<const std::string> ids, bool accept);
    /// Takes back every decision fed so far, so that the next walk starts from the linker as it
    /// was constructed (simulateReview calls it first); nothing to do for a linker that does not
    /// learn.
    virtual void reset();
};

enum class ReviewOrderKind { Document, Queue };
std::string_view reviewOrderName(ReviewOrderKind order) noexcept;  ///< "document", "queue"
/// "document" or "queue"; unset otherwise.
std::optional<ReviewOrderKind> reviewOrderFromName(std::string_view name) noexcept;

struct ReviewWalkOptions {
    ReviewOrderKind order = ReviewOrderKind::Queue;
    bool applyToAll = false;
    ReviewPolicy policy;
    /// Stop after this many decisions (0: until every mention is decided).
    std::size_t maxDecisions = 0;
    ProgressSink progress;  ///< "Simulating review (ORDER)"; Cancelled
};

struct ReviewStep {
    std::size_t decisions = 0;     ///< curator decisions so far
    std::size_t corrections = 0;   ///< of those, corrections (the proposal was wrong)
    std::size_t decided = 0;       ///< mentions with a decision (with those applied to all)
    std::size_t appliedToAll = 0;  ///< mentions decided by "apply to all"
    double accuracy = 0.0;         ///< the whole split (see the header)
};

struct ReviewWalk {
    ReviewOrderKind order = ReviewOrderKind::Queue;
    bool applyToAll = false;
    std::size_t mentions = 0;
    std::vector<ReviewStep> steps;  ///< step 0: no decision yet; then one per decision
    /// The fewest decisions after which the accuracy is at least `accuracy`; unset when never.
    std::optional<std::size_t> decisionsToReach(double accuracy) const;
};

/// Walks the mentions (document order = their order here), from the linker reset(). Error when
/// the linker's size differs from the mentions' or a mention has no gold id.
ReviewWalk simulateReview(ReviewLinker& linker, std::span<const ReviewMention> mentions,
                          const ReviewWalkOptions& options);

/// Walks as CSV, one row per step: order,apply_to_all,decisions,corrections,decided,applied_to_all,accuracy.
std::string reviewWalkCsv(std::span<const ReviewWalk> walks);

}  // namespace linkscope::curation
