#pragma once
// The review queue of a team project handed out through claims (core/project/team_work.h), on
// the GUI thread, over the decision log's connection:
//  - claimNext() claims, for this login, the first free mention of the review queue (highest
//    expected gain first) and holds it; the claim is renewed while the curator works on it (a
//    timer, every third of the time-to-live) and released when they move to another mention
//    (moveTo) or ask for the next one. A decision turns it into a lasting claim on the server,
//    so a decided mention is dropped here, not released.
//  - The other logins' unexpired claims are read with every claim and every renewal: a mention
//    claimed by as many others as it may have (claimCapacity) is taken, and the review queue
//    skips it (review_queue_order.h); claimNote() says who holds it until when.
//  - The mode (shared or blind, the overlap share) is read when the project opens and with every
//    renewal. In blind mode a curator reads only their own decisions (the server's row-level
//    security); decisions of other logins that the log holds from before the switch are read
//    back from the server, so that no view keeps showing them.
// Nothing happens for a project file. While the connection is lost (the log's store used by
// the reconnection) nothing is claimed, renewed or read: claimNext() says so. A reviewer, who
// reads and writes nothing, claims nothing: claimNext() gives the first mention no one holds.
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "project/curation_decision.h"
#include "project/team_work.h"

namespace linkscope::ui {

class DecisionLog;
class TeamLiveUpdates;
struct QueuedMention;

class ReviewClaims : public QObject {
    Q_OBJECT
public:
    /// Follows `decisions` and the connection's state in `live`, which must outlive this object.
    ReviewClaims(DecisionLog& decisions, const TeamLiveUpdates& live, QObject* parent = nullptr);

    /// Reads the mode and the claims of the project the log has open (nothing for a file).
    void start();
    /// Releases the claim held and stops renewing.
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

    /// Releases the claim held, then claims the first free mention of `queue` (in its order).
    /// nullopt when every one is taken or the claim failed; lastError() then says why ("" when
    /// the queue is simply used up).
    std::optional<project::MentionKey> claimNext(const std::vector<QueuedMention>& queue);
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

    /// Renews the claim held and reads the mode and the others' claims again (the timer's work).
    void renew();

Q_SIGNALS:
    /// Others' claims changed (who holds what, not their renewals), or the mode: the queue and
    /// the views read them again.
    void claimsChanged();

private:
    void readClaims();
    void readMode();
    void release();
    void forget(const project::MentionKey& key);
    bool usable() const;
    bool reviewer() const;
    /// Who holds each mention others claimed ("=" after a lasting claim's login), without the
    /// expiry times: what the views show changes with it, not with every renewal.
    std::map<project::MentionKey, std::vector<std::string>> holders() const;
    template <class Call>
    bool guarded(const QString& what, Call&& call);

    DecisionLog& log_;
    const TeamLiveUpdates& live_;
    bool active_ = false;
    project::TeamModeSettings mode_;
    std::chrono::seconds timeToLive_{120};
    QTimer renewal_;
    std::optional<project::MentionKey> held_;
    std::map<project::MentionKey, std::vector<project::Claim>> others_;
    std::map<std::pair<std::string, std::string>, int> othersByDocument_;
    QString lastError_;
};

}  // namespace linkscope::ui
