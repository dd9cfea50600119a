#pragma once
// How a team shares the work of one project on a server (project_store.h's team methods):
//
//  - The mode. Shared: every curator reads every decision. Blind: a curator reads only their own
//    decisions (the server's row-level security hides the rest; adjudicators and reviewers read
//    all), so that two curators decide independently and Cohen's kappa measures their agreement
//    live. In blind mode a share of the documents (overlapShare, chosen from overlapSeed, the same
//    on every client) is given to two curators: a mention of such a document takes two claims,
//    any other one.
//  - Claims. A curator claims the next mentions of their review queue (highest expected gain
//    first); a claim expires after its time-to-live unless renewed, and is then free for anyone.
//    A decision turns its curator's claim on the mention into a lasting one, so that a mention
//    once decided is not handed out again (in blind mode too, where the decision itself is
//    hidden). Claims coordinate; the server's race check below is what refuses.
//  - Races. A decision carries the link its curator saw (previousLink). When the mention's link
//    in effect, as that curator may read it, is another (someone decided in between), the server
//    refuses the decision; the store throws DecisionConflict with the other decision.
//    Adjudicators are not checked: an adjudication settles decisions it has read.
//  - Live changes. Every change of a decision (a new one, an undo, a redo) takes the next number
//    of one sequence, the revision, in commit order, and the server notifies the channel
//    kChangeChannel with it. A client that lost the connection reconnects and asks for the
//    changes above the last revision it saw.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "project/curation_decision.h"
#include "util/error.h"

namespace linkscope::project {

enum class TeamMode { Shared, Blind };
std::string_view teamModeName(TeamMode mode) noexcept;  ///< "shared", "blind"
std::optional<TeamMode> parseTeamMode(std::string_view name) noexcept;

struct TeamModeSettings {
    TeamMode mode = TeamMode::Shared;
    double overlapShare = 0.1;      ///< blind: the share of documents given to two curators, in [0, 1]
    std::uint64_t overlapSeed = 0;  ///< blind: which documents those are
};

/// Whether `document` is one of the blind mode's doubly assigned documents: a hash of the seed
/// and the document id below the share (the same answer everywhere, whatever the corpus order).
bool overlapDocument(const TeamModeSettings& settings, std::string_view document) noexcept;
/// How many curators may hold a claim on a mention of `document` at once (1, or 2 for an
/// overlap document in blind mode).
int claimCapacity(const TeamModeSettings& settings, std::string_view document) noexcept;

/// A claim as the server holds it.
struct Claim {
    MentionKey mention;
    std::string login;
    std::string expires;  ///< UTC, ISO 8601; "infinity" for a decided mention's lasting claim
};

/// The decisions changed above a revision: new ones and those undone or redone, each in its
/// present state, in revision order; revision is the highest seen (the caller's next start).
struct LiveChanges {
    std::vector<Decision> decisions;
    std::int64_t revision = 0;
};

/// The channel of PostgreSQL's NOTIFY on which the server announces every committed change of a
/// decision; the payload is the change's revision, in decimal.
inline constexpr const char* kChangeChannel = "linkscope_decisions";

/// The server refused a decision: another decision changed the mention's link after its
/// curator had seen it. what() names the link seen and the other decision.
class DecisionConflict : public Error {
public:
    DecisionConflict(const std::string& message, Decision refused, std::optional<Decision> theirs)
        : Error(message), refused_(std::move(refused)), theirs_(std::move(theirs)) {}
    const Decision& refused() const noexcept { return refused_; }
    /// The decision in effect on the mention now, as this login may read it.
    const std::optional<Decision>& theirs() const noexcept { return theirs_; }

private:
    Decision refused_;
    std::optional<Decision> theirs_;
};

/// The connection to the server is lost. Thrown at once by the call that found it out; nothing
/// is queued. The store stays usable after ProjectStore::reconnect().
class StoreDisconnected : public Error {
public:
    using Error::Error;
};

}  // namespace linkscope::project
