#pragma once
// The review queue of a team project handed out through claims (core/project/team_work.h). The
// claims' statements run on a worker of their own (review_claims_worker.h), on a connection of
// its own, never on the GUI thread: on a distant server an F8 press or a renewal would otherwise
// hold the event loop for a round trip (benchmarks/ui_stall). This object, on the GUI thread,
// asks and takes the answers (queued signals), and keeps what the views read:
//  - claimNext() asks the worker to claim, for this login, the first free mention of the review
//    queue (highest expected gain first); nextAnswered() brings it, and it is held. While that
//    request is on its way, claimNext() asks nothing more (claiming()): an F8 pressed meanwhile
//    neither claims a second mention nor skips one. The claim is renewed while the curator
//    works on it (a timer, every third of the time-to-live) and released when they move to
//    another mention (moveTo) or ask for the next one; the worker takes the requests in the
//    order asked, so a release goes before the next claim. A decision turns it into a lasting
//    claim on the server, so a decided mention is dropped here, not released.
//  - The other logins' unexpired claims are read with every claim and every renewal: a mention
//    claimed by as many others as it may have (claimCapacity) is taken, and the review queue
//    skips it (review_queue_order.h); claimNote() says who holds it until when.
//  - The mode (shared or blind, the overlap share) is read when the project opens and with every
//    renewal. In blind mode a curator reads only their own decisions (the server's row-level
//    security); decisions of other logins that the log holds from before the switch are read
//    back from the server, so that no view keeps showing them: the worker reads them on its
//    connection and the log takes them here (DecisionLog::readBackFrom). A read-back that may
//    predate a write of the log is asked again; one that failed, with the next reading of the mode.
// Nothing happens for a project file. While the connection is lost nothing is claimed, renewed
// or read: claimNext() says so. A worker's request that finds the server gone turns the window
// read-only as the log's own writes do (DecisionLog::connectionLost); once the live updates are
// connected again, the claims are renewed and read at once. A reviewer, who reads and writes
// nothing, claims nothing: claimNext() answers at once with the first mention no one holds.
#include <QObject>
#include <QString>
#include <QThread>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "project/curation_decision.h"
#include "project/team_work.h"
#include "review_queue_order.h"

namespace linkscope::ui {

class DecisionLog;
class TeamLiveUpdates;
class ReviewClaimsWorker;
struct ClaimsAnswer;

class ReviewClaims : public QObject {
    Q_OBJECT
public:
    /// Follows `decisions` and the connection's state in `live`, which must outlive this object.
    ReviewClaims(DecisionLog& decisions, const TeamLiveUpdates& live, QObject* parent = nullptr);
    /// Stops (the claim held is released) and waits for the worker.
    ~ReviewClaims() override;

    /// Starts the worker, which reads the mode and the claims of the project the log has open
    /// (nothing for a file); claimsChanged() follows.
    void start();
    /// Releases the claim held, stops renewing and waits for the worker to have done so.
    void stop();
    /// Whether the queue goes through claims: a project on a server is open.
    bool active() const { return active_; }

    /// How long a claim lasts without renewal (renewed every third of it).
    void setTimeToLive(std::chrono::seconds timeToLive);
    std::chrono::seconds timeToLive() const { return timeToLive_; }

    const project::TeamModeSettings& mode() const { return mode_; }
    bool blind() const { return active_ && mode_.mode == project::TeamMode::Blind; }
    /// Whether a document is one of blind mode's doubly assigned ones (false in shared mode).
    bool overlapDocument(const std::string& document) const;
    /// The mode in words, for the status and the messages ("" for a project file).
    QString modeText() const;

    /// Releases the claim held, then asks for the first free mention of `queue` (in its order);
    /// nextAnswered() brings it. While a claim is on its way nothing more is asked (true). False
    /// when nothing can be asked (lastError() says why).
    bool claimNext(const std::vector<QueuedMention>& queue);
    /// A claim asked by claimNext() is on its way.
    bool claiming() const { return claiming_; }
    /// Requests that answer (claims, renewals, reads) are on their way.
    bool busy() const { return pending_ > 0; }
    /// The mention claimed and not yet decided.
    const std::optional<project::MentionKey>& held() const { return held_; }
    /// The curator now works on `current`: the claim held on another mention is released.
    void moveTo(const std::optional<project::MentionKey>& current);
    QString lastError() const { return lastError_; }

    /// Whether others hold every claim the mention may have (the queue skips it).
    bool takenByOthers(const project::MentionKey& key) const;
    /// "claimed by bob until 14:32", "decided by bob" ("handed to bob" in blind mode), or "".
    QString claimNote(const project::MentionKey& key) const;
    /// For the Documents dock: the overlap mark and how many mentions others hold ("" for none).
    QString documentNote(const std::string& split, const std::string& document) const;

    /// Asks for the claim held to be renewed and the mode and the others' claims to be read
    /// again (the timer's work); busy() until it is answered.
    void renew();

Q_SIGNALS:
    /// Others' claims changed (who holds what, not their renewals), or the mode: the queue and
    /// the views read them again.
    void claimsChanged();
    /// The answer to claimNext(): the mention claimed (now held) with its priority, or nullopt
    /// when every one is taken or the claim failed (lastError() then says why, "" when the queue
    /// is simply used up); `queueSize` is the length of the queue it was claimed from.
    void nextAnswered(const std::optional<linkscope::ui::QueuedMention>& claimed, int queueSize);

private:
    void take(const ClaimsAnswer& answer);
    void takeClaims(std::vector<project::Claim> claims);
    void takeMode(const project::TeamModeSettings& mode);
    void takeReadBack(const ClaimsAnswer& answer);
    /// Asks the worker for every decision this login may read (readBackOwed_).
    void askReadBack();
    void release();
    /// Runs `request` on the worker's thread, after those asked before.
    template <class Request>
    void ask(Request&& request);
    bool usable() const;
    bool reviewer() const;
    /// Who holds each mention others claimed ("=" after a lasting claim's login), without the
    /// expiry times: what the views show changes with it, not with every renewal.
    std::map<project::MentionKey, std::vector<std::string>> holders() const;

    DecisionLog& log_;
    const TeamLiveUpdates& live_;
    bool active_ = false;
    project::TeamModeSettings mode_;
    std::chrono::seconds timeToLive_{120};
    QTimer renewal_;
    bool lost_ = false;  ///< the live updates' connection was lost: renew once it is back
    std::optional<project::MentionKey> held_;
    bool claiming_ = false;
    std::map<project::MentionKey, double> asked_;  ///< the priorities of the queue claimed from
    int askedQueueSize_ = 0;
    int pending_ = 0;   ///< requests asked and not yet answered
    int renewing_ = 0;  ///< renewals among them (the timer asks no second one)
    std::uint64_t generation_ = 0;
    bool readBackOwed_ = false;         ///< switched to blind with others' decisions on show
    bool readingBack_ = false;          ///< a read-back is on its way
    std::uint64_t readBackWrites_ = 0;  ///< the log's writesSent() when it was asked
    std::map<project::MentionKey, std::vector<project::Claim>> others_;
    std::map<std::pair<std::string, std::string>, int> othersByDocument_;
    QString lastError_;
    // The worker lives on thread_ from start() to stop(); declared last, stopped first.
    QThread thread_;
    std::unique_ptr<ReviewClaimsWorker> worker_;
};

}  // namespace linkscope::ui
