#pragma once
// linkscope-cli simulate-curation --project FILE|URI --curator NAME: one simulated curator that
// stores its decisions in a project, as a curator in the GUI would, so that several of them
// (separate processes) drive a team project as a load test.
//
// On a server (a team project) the curator takes its work through claims (team_work.h): it
// claims the first free mention of its review queue, thinks (the pause that --rate sets), and
// records the mention's gold link as a decision naming its login. It renews its claim while it
// thinks and gives it up when it does not decide. Every other curator's decision it reads
// (LISTEN/NOTIFY, then changesSince) enters its linker and its queue, as in the GUI, and the time
// when the queue was ranked again with it is noted (the team's commit-to-re-ranked latency). When the
// server refuses a decision because another curator decided the mention first
// (DecisionConflict), the curator counts it, takes the other's decision and claims the next
// mention. When the connection drops (StoreDisconnected), it reconnects with a growing pause and
// catches up on what it missed; a decision whose commit it could not see is looked up in what it
// missed, and decided again only when it is not there: nothing is queued, nothing recorded twice.
//
// In a project file there are no claims: the curator walks its queue and records each decision
// under its name, leaving the mentions already decided in the file.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "curation/review_queue.h"
#include "curation/review_walk.h"
#include "eval/queries.h"
#include "project/curation_decision.h"

namespace linkscope::cli {

struct SimulatedCuratorOptions {
    std::filesystem::path project;  ///< a project file or a `postgresql://` URI
    std::string curator;            ///< the name its decisions carry (a server: the login when empty)
    double rate = 0.0;              ///< decisions per second; 0: as fast as the store takes them
    std::size_t limit = 0;          ///< stop after this many decisions stored (0: until none is left)
    std::chrono::seconds claimTimeToLive{60};
    /// How long the curator keeps trying to reach a server that went away before it gives up.
    std::chrono::seconds reconnectTimeout{120};
    curation::ReviewOrderKind order = curation::ReviewOrderKind::Queue;
    curation::ReviewPolicy policy;
};

/// One decision the curator stored.
struct SimulatedDecision {
    project::MentionKey mention;
    std::string link;
    bool correction = false;
    double commitMilliseconds = 0.0;  ///< how long record() took
    /// When record() returned (the commit seen by the curator): milliseconds since the Unix epoch.
    double committedAtMilliseconds = 0.0;
};

/// Another curator's decision read live, once it had moved this curator's linker and queue.
struct ReceivedDecision {
    std::string login;  ///< the other curator's
    project::MentionKey mention;
    /// When its linker and queue had taken the decision (the queue ranked again): milliseconds
    /// since the Unix epoch, to set beside the other curator's committedAtMilliseconds.
    double rerankedAtMilliseconds = 0.0;
    /// From the decision's timestamp (taken as it was recorded, before its commit) to then;
    /// unset when the timestamp could not be read.
    std::optional<double> rerankedMilliseconds;
};

struct SimulatedCuratorResult {
    std::string curator;
    std::string login;  ///< empty for a file
    bool onServer = false;
    std::string mode;  ///< the project's team mode
    std::size_t mentions = 0;
    std::vector<SimulatedDecision> decisions;  ///< in the order stored
    std::size_t conflicts = 0;                 ///< decisions the server refused: another curator was first
    std::size_t reconnects = 0;
    std::size_t recoveredCommits = 0;  ///< decisions whose commit was found only after a reconnect
    std::size_t seenFromOthers = 0;    ///< other curators' decisions read while walking
    /// For each other curator's decision read live: from its timestamp to the moment it was read.
    std::vector<double> visibleMilliseconds;
    /// Each other curator's decision read live that moved this curator's linker and queue.
    std::vector<ReceivedDecision> received;
    double seconds = 0.0;
};

/// A mention as a project names it, and its text as written (the decision log shows it).
struct ProjectMention {
    project::MentionKey key;
    std::string text;
};

/// The queries' mentions in a project: the split's name, the document and the offsets of each.
std::vector<ProjectMention> projectMentionsOf(std::span<const eval::EvalQuery> queries, const std::string& split);

/// Runs the curator until `limit` decisions are stored or no mention is left for it. `mentions`
/// and `inProject` are parallel to the linker's mentions. Error for an unreachable project, a refused
/// action other than a race, or a server away longer than reconnectTimeout.
SimulatedCuratorResult runSimulatedCurator(curation::ReviewLinker& linker,
                                           std::span<const curation::ReviewMention> mentions,
                                           std::span<const ProjectMention> inProject,
                                           const SimulatedCuratorOptions& options);

}  // namespace linkscope::cli
