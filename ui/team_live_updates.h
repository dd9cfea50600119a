#pragma once
// A project on a server kept live in the window, on the GUI thread: another curator's committed
// decision reaches the decision log within a turn or two of the event loop, and a lost
// connection turns the window read-only at once and is mended by itself.
//
// - Listening: a connection of its own LISTENs on the server's change channel
//   (project/team_work.h). Its socket is watched on the GUI thread (QSocketNotifier) and read
//   without blocking (ProjectStore::takeChangeNotifications).
// - Reading: what changed (changesSince the last revision seen, then the decision in effect on
//   each mention it touched) is read on a worker through a connection of its own, never on the
//   GUI thread. The log then takes it (DecisionLog::applyRemote) and announces it as it does a
//   local decision: the ranker host feeds the run's datastore and ranks again the mentions it
//   reaches, and the review queue moves. Notifications that arrive while a read runs make one
//   more read after it.
// - Faults: a socket that closes, a read that fails, or a write of the log that finds the
//   connection lost turn the log read-only (every decision refused at once, nothing queued) and
//   start reconnecting on a worker, again after a growing pause (firstRetry, doubling up to
//   longestRetry). Once its connections stand again the log takes what changed while it was
//   away (the catch-up) and is writable again. While reconnecting, the worker uses the log's
//   store: nothing else may use it then (the log is read-only, and stop() waits for the worker).
//
// - Role and mode: the login's role in the project (project_store.h's TeamRole) and the project's
//   mode (shared or blind) are read with the first connection and again after each reconnect.
//   A reviewer's log is read-only for as long as the role stays, saying why.
// - A decision whose COMMIT the connection's loss left in doubt (DecisionLog::
//   recordOutcomeUnknown) is kept aside, the view unchanged, until the catch-up after
//   reconnecting reads the server again; decisionOutcomeKnown then says whether it was stored.
//   An undo or a redo left in doubt (DecisionLog::stateChangeOutcomeUnknown) is settled the same
//   way. The catch-up then also reads the log store's history on its worker, and the undo stack
//   is rebuilt from it: a decision stored after all is the log's own, which undo takes back.
//
// A project file has none of this: start() does nothing for it.
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include <vector>

#include "background_job.h"
#include "project/curation_decision.h"
#include "project/project_store.h"
#include "project/team_work.h"

class QSocketNotifier;

namespace linkscope::ui {

class DecisionLog;

class TeamLiveUpdates : public QObject {
    Q_OBJECT
public:
    enum class State {
        Off,         ///< no project on a server
        Connecting,  ///< the first connections are being made
        Live,        ///< listening; the log is writable
        Lost,        ///< the connection is lost: read-only, reconnecting
    };

    /// The decision now in effect on each mention a change touched (nullopt: none).
    using InEffect = std::map<project::MentionKey, std::optional<project::Decision>>;

    /// Follows `decisions`, which must outlive this object.
    explicit TeamLiveUpdates(DecisionLog& decisions, QObject* parent = nullptr);
    /// Stops the workers (waits for them).
    ~TeamLiveUpdates() override;

    /// Starts following the project the log has open, when it is on a server.
    void start();
    /// Stops listening and waits for the workers; the log is left as it is.
    void stop();

    State state() const { return state_; }
    /// What the state comes with: the reason a connection was lost, or failed again.
    QString detail() const { return detail_; }
    /// Whether the log's connection is encrypted (SSL/TLS); read when the state became Live.
    bool encrypted() const { return encrypted_; }
    /// The highest revision of the server's changes the log has taken.
    std::int64_t revision() const { return revision_; }
    /// The pause before the next reconnection attempt (while Lost).
    std::chrono::milliseconds nextRetry() const { return pause_; }
    /// This login's role in the project, as the server says (nullopt: the project's owner, or
    /// not known yet); read when the state became Live.
    std::optional<project::TeamRole> role() const { return role_; }
    /// The project's mode; read when the state became Live.
    project::TeamMode mode() const { return mode_; }
    /// Decisions (or undos and redos) whose COMMIT a lost connection left in doubt, waiting for
    /// the catch-up.
    int decisionsInDoubt() const { return static_cast<int>(inDoubt_.size() + changesInDoubt_.size()); }
    /// Why a reviewer's window is read-only.
    static QString reviewerReason();

    /// The pause after the first failure, and the longest one.
    void setRetryPauses(std::chrono::milliseconds first, std::chrono::milliseconds longest);

Q_SIGNALS:
    void stateChanged(linkscope::ui::TeamLiveUpdates::State state);
    /// Decisions written elsewhere were taken into the log (`changed` mentions differ now).
    void remoteDecisionsTaken(int changed);
    /// The catch-up showed what became of a decision left in doubt: `stored` or not, and the
    /// message for the user.
    void decisionOutcomeKnown(const QString& message, bool stored);

private:
    struct Arrival;

    void setState(State state, const QString& detail = {});
    void connectFirst();
    void watchSocket();
    void readSocket();
    void readChanges();
    void take(const Arrival& arrival);
    void lose(const QString& reason);
    void reconnect();
    void holdInDoubt(const project::Decision& decision);
    void holdChangeInDoubt(std::int64_t id, bool undo);
    /// `history`: the log store's history read by the catch-up, when a change was in doubt.
    void settleInDoubt(const std::vector<project::Decision>* history);
    /// The log's read-only reason while connected: the reviewer's, or none.
    QString connectedReadOnlyReason() const;

    /// A decision left in doubt and the id of the decision in effect on its mention before it.
    struct InDoubt {
        project::Decision decision;
        std::int64_t shownBefore = 0;
    };
    /// An undo (or a redo) of the decision `id` left in doubt; `what` describes it.
    struct ChangeInDoubt {
        std::int64_t id = 0;
        bool undo = true;
        QString what;
    };

    DecisionLog& log_;
    QString address_;
    std::shared_ptr<project::ProjectStore> listener_;  ///< LISTENs; used on the GUI thread once connected
    std::shared_ptr<project::ProjectStore> reader_;    ///< reads changes; used by readJob_ only
    QSocketNotifier* notifier_ = nullptr;
    QTimer retry_;
    State state_ = State::Off;
    QString detail_;
    bool encrypted_ = false;
    std::optional<project::TeamRole> role_;
    project::TeamMode mode_ = project::TeamMode::Shared;
    std::vector<InDoubt> inDoubt_;
    std::vector<ChangeInDoubt> changesInDoubt_;
    bool readAgain_ = false;
    std::int64_t revision_ = 0;
    std::chrono::milliseconds firstPause_{250};
    std::chrono::milliseconds longestPause_{8000};
    std::chrono::milliseconds pause_{250};
    // Declared last: destroyed (cancelled and waited for) before the stores their work uses.
    BackgroundJob connectJob_;
    BackgroundJob readJob_;
};

}  // namespace linkscope::ui
