#pragma once
// One curator's decision on one mention, as the project store keeps it: what was decided, by
// whom and when, and which link it replaced. Decisions are the durable record of curation: the
// corrected corpus, the exports and the curator keys of the kNN datastore are all derived from
// the decisions in effect.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace linkscope::project {

/// accept: the proposed link is right; correct: another entity is; reject: the proposed link is
/// wrong and no entity is given; nil: the mention names nothing in the KB; skip: looked at,
/// left for later (reviewed, no link change).
enum class DecisionKind { Accept, Correct, Reject, Nil, Skip };
std::string_view decisionKindName(DecisionKind kind) noexcept;  ///< "accept", "correct", ...
std::optional<DecisionKind> parseDecisionKind(std::string_view name) noexcept;

/// A mention's identity across sessions: the corpus file may be re-read, the offsets stay.
struct MentionKey {
    std::string split;      ///< the manifest's split name ("train", "dev", "test", ...)
    std::string document;   ///< PMID
    std::size_t start = 0;  ///< character offsets in Document::text(), end exclusive
    std::size_t end = 0;
    friend auto operator<=>(const MentionKey&, const MentionKey&) = default;
};

/// Where a decision stands in the undo history: done (in effect), undone (on the redo stack),
/// or discarded (undone, then a new decision cut the redo stack; kept as history only).
enum class DecisionState { Done, Undone, Discarded };
std::string_view decisionStateName(DecisionState state) noexcept;                 ///< "done", "undone", "discarded"
std::optional<DecisionState> parseDecisionState(std::string_view name) noexcept;  ///< the inverse

struct Decision {
    std::int64_t id = 0;  ///< assigned by the store, increasing in order of recording
    MentionKey mention;
    std::string mentionText;  ///< the mention as the curator saw it (the log reads alone)
    DecisionKind kind = DecisionKind::Accept;
    /// Links as canonical ids joined by '|' ("MESH:D003924|MESH:D009369" for a composite).
    std::string previousLink;  ///< the link in effect before (a prediction or an earlier decision)
    std::string newLink;       ///< accept/correct: the chosen link; nil: "-1"; reject/skip: empty
    std::string curator;       ///< who decided
    std::string login;         ///< the server login that recorded it (set by the server); empty in a file
    std::string timestamp;     ///< UTC, ISO 8601 with milliseconds ("2026-11-22T07:30:12.123Z")
    DecisionState state = DecisionState::Done;
};

/// The link a decision leaves in effect on its mention: newLink for accept / correct / nil, an
/// empty string for reject (the mention stays, unlinked), nullopt for skip (no change).
std::optional<std::string> decidedLink(const Decision& decision);

}  // namespace linkscope::project
