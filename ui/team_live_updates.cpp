#include "team_live_updates.h"

#include <QSocketNotifier>

#include <algorithm>
#include <set>
#include <utility>

#include "decision_command.h"  // describeDecision
#include "decision_log.h"
#include "project/project_store.h"
#include "project/team_work.h"

namespace linkscope::ui {

// What a read of the server's changes brings: the decision now in effect on each mention that
// changed, the revision read up to, and how many writes the log had sent when the read began.
struct TeamLiveUpdates::Arrival {
    InEffect inEffect;
    std::int64_t revision = 0;
    std::uint64_t writesAtStart = 0;
};

// What a connection made on a worker reads besides the changes: the login's role and the mode.
struct TeamStanding {
    std::optional<project::TeamRole> role;
    project::TeamMode mode = project::TeamMode::Shared;
};

namespace {

using project::ProjectStore;

// Above this many mentions touched, the decisions in effect are read in one statement rather
// than one per mention.
constexpr std::size_t kReadAllAbove = 64;

// On a worker: what changed above `since`, as the decisions now in effect on the mentions it
// touched (an undo brings back the decision before, which the change itself does not name).
TeamLiveUpdates::InEffect inEffectAfter(ProjectStore& reader, std::int64_t since, std::int64_t& revision) {
    const project::LiveChanges changes = reader.changesSince(since);
    revision = changes.revision;
    std::set<project::MentionKey> touched;
    for (const project::Decision& decision : changes.decisions) touched.insert(decision.mention);
    TeamLiveUpdates::InEffect inEffect;
    if (touched.size() > kReadAllAbove) {
        std::map<project::MentionKey, project::Decision> latest;
        for (project::Decision& decision : reader.doneDecisions()) {
            const project::MentionKey key = decision.mention;
            latest[key] = std::move(decision);  // id order: the latest wins
        }
        for (const project::MentionKey& key : touched) {
            const auto found = latest.find(key);
            inEffect[key] = found == latest.end() ? std::nullopt : std::optional(found->second);
        }
        return inEffect;
    }
    for (const project::MentionKey& key : touched) inEffect[key] = reader.currentDecision(key);
    return inEffect;
}

}  // namespace

TeamLiveUpdates::TeamLiveUpdates(DecisionLog& decisions, QObject* parent) : QObject(parent), log_(decisions) {
    retry_.setSingleShot(true);
    connect(&retry_, &QTimer::timeout, this, &TeamLiveUpdates::reconnect);
    connect(&log_, &DecisionLog::recordOutcomeUnknown, this, &TeamLiveUpdates::holdInDoubt);
    connect(&log_, &DecisionLog::stateChangeOutcomeUnknown, this, &TeamLiveUpdates::holdChangeInDoubt);
    connect(&log_, &DecisionLog::connectionLost, this, &TeamLiveUpdates::lose);
    connect(&readJob_, &BackgroundJob::failed, this, &TeamLiveUpdates::lose);
    connect(&connectJob_, &BackgroundJob::failed, this, [this](const QString& message) {
        if (state_ == State::Connecting) {
            lose(message);
            return;
        }
        pause_ = std::min(pause_ * 2, longestPause_);
        setState(State::Lost, message);
        retry_.start(pause_);
    });
}

TeamLiveUpdates::~TeamLiveUpdates() { stop(); }

void TeamLiveUpdates::setRetryPauses(std::chrono::milliseconds first, std::chrono::milliseconds longest) {
    firstPause_ = first;
    longestPause_ = std::max(first, longest);
    pause_ = firstPause_;
}

void TeamLiveUpdates::setState(State state, const QString& detail) {
    state_ = state;
    detail_ = detail;
    if (state == State::Live) encrypted_ = log_.store() != nullptr && log_.store()->encrypted();
    Q_EMIT stateChanged(state);
}

void TeamLiveUpdates::start() {
    stop();
    if (!log_.onServer()) return;
    // The store's own address: with the connect_timeout it was opened with (team_project_open.h).
    address_ = QString::fromStdString(log_.store()->file().string());
    revision_ = 0;
    pause_ = firstPause_;
    connectFirst();
}

void TeamLiveUpdates::stop() {
    retry_.stop();
    delete notifier_;
    notifier_ = nullptr;
    connectJob_.cancel();
    connectJob_.waitForFinished();
    readJob_.cancel();
    readJob_.waitForFinished();
    listener_.reset();
    reader_.reset();
    readAgain_ = false;
    inDoubt_.clear();
    changesInDoubt_.clear();
    role_.reset();
    mode_ = project::TeamMode::Shared;
    if (state_ != State::Off) setState(State::Off);
}

void TeamLiveUpdates::connectFirst() {
    setState(State::Connecting);
    const std::string address = address_.toStdString();
    const std::uint64_t writes = log_.writesSent();
    struct Connected {
        std::shared_ptr<ProjectStore> listener, reader;
        Arrival arrival;
        TeamStanding standing;
    };
    connectJob_.start(
        [address, writes](const JobContext&) {
            Connected connected;
            connected.listener = std::make_shared<ProjectStore>(ProjectStore::open(address));
            connected.listener->listenForChanges();
            connected.reader = std::make_shared<ProjectStore>(ProjectStore::open(address));
            // Listening first, then reading from the start: nothing committed in between is missed.
            connected.arrival.writesAtStart = writes;
            connected.arrival.inEffect = inEffectAfter(*connected.reader, 0, connected.arrival.revision);
            connected.standing = {connected.reader->teamRole(), connected.reader->teamMode().mode};
            return connected;
        },
        [this](Connected connected) {
            listener_ = std::move(connected.listener);
            reader_ = std::move(connected.reader);
            role_ = connected.standing.role;
            mode_ = connected.standing.mode;
            watchSocket();
            log_.setReadOnly(connectedReadOnlyReason());
            setState(State::Live);
            take(connected.arrival);
        });
}

void TeamLiveUpdates::watchSocket() {
    delete notifier_;
    notifier_ = nullptr;
    const int socket = listener_ ? listener_->changeSocket() : -1;
    if (socket < 0) return;
    notifier_ = new QSocketNotifier(socket, QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, &TeamLiveUpdates::readSocket);
}

void TeamLiveUpdates::readSocket() {
    if (!listener_ || state_ != State::Live) return;
    try {
        if (listener_->takeChangeNotifications()) readChanges();
    } catch (const std::exception& error) {
        lose(QString::fromUtf8(error.what()));
    }
}

void TeamLiveUpdates::readChanges() {
    if (state_ != State::Live || !reader_) return;
    if (readJob_.isRunning()) {
        readAgain_ = true;  // one more read once this one is taken
        return;
    }
    readAgain_ = false;
    std::shared_ptr<ProjectStore> reader = reader_;
    const std::int64_t since = revision_;
    const std::uint64_t writes = log_.writesSent();
    readJob_.start(
        [reader, since, writes](const JobContext&) {
            Arrival arrival;
            arrival.writesAtStart = writes;
            arrival.inEffect = inEffectAfter(*reader, since, arrival.revision);
            return arrival;
        },
        [this](Arrival arrival) { take(arrival); });
}

void TeamLiveUpdates::take(const Arrival& arrival) {
    if (arrival.writesAtStart != log_.writesSent()) {
        // The log wrote while this was read: what was read may predate that write. Read again,
        // from the same revision.
        readAgain_ = true;
    } else {
        revision_ = std::max(revision_, arrival.revision);
        int changed = 0;
        for (const auto& [key, now] : arrival.inEffect) {
            const auto shown = log_.currentDecision(key);
            if (shown.has_value() != now.has_value() || (shown && (shown->id != now->id || shown->state != now->state)))
                ++changed;
        }
        log_.applyRemote(arrival.inEffect);
        if (changed > 0) Q_EMIT remoteDecisionsTaken(changed);
    }
    if (readAgain_ && state_ == State::Live) QTimer::singleShot(0, this, &TeamLiveUpdates::readChanges);
}

void TeamLiveUpdates::lose(const QString& reason) {
    if (state_ == State::Off || state_ == State::Lost) return;
    delete notifier_;
    notifier_ = nullptr;
    log_.setReadOnly(tr("the connection to the server is lost (%1); curation resumes once Linkscope has "
                        "reconnected, which it does by itself")
                         .arg(reason));
    pause_ = firstPause_;
    setState(State::Lost, reason);
    retry_.start(pause_);
}

void TeamLiveUpdates::reconnect() {
    if (state_ != State::Lost) return;
    if (readJob_.isRunning() || connectJob_.isRunning()) {
        retry_.start(firstPause_);  // a read on the old connection is still ending
        return;
    }
    const std::string address = address_.toStdString();
    std::shared_ptr<ProjectStore> listener = listener_;
    std::shared_ptr<ProjectStore> reader = reader_;
    ProjectStore* logStore = log_.store();
    const std::int64_t since = revision_;
    // Anything in doubt: the undo stack is rebuilt from the history the catch-up reads.
    const bool readHistory = !inDoubt_.empty() || !changesInDoubt_.empty();
    struct Reconnected {
        std::shared_ptr<ProjectStore> listener, reader;
        Arrival arrival;
        TeamStanding standing;
        std::vector<project::Decision> history;
    };
    connectJob_.start(
        [address, listener, reader, logStore, since, readHistory](const JobContext&) {
            Reconnected again{listener, reader, {}, {}, {}};
            if (again.listener) {
                again.listener->reconnect(since);  // LISTENs again
            } else {
                again.listener = std::make_shared<ProjectStore>(ProjectStore::open(address));
                again.listener->listenForChanges();
            }
            if (again.reader)
                again.reader->reconnect(since);
            else
                again.reader = std::make_shared<ProjectStore>(ProjectStore::open(address));
            if (logStore != nullptr) logStore->reconnect(since);
            // The catch-up: what changed while the window was away.
            again.arrival.inEffect = inEffectAfter(*again.reader, since, again.arrival.revision);
            again.standing = {again.reader->teamRole(), again.reader->teamMode().mode};
            if (readHistory && logStore != nullptr) again.history = logStore->decisions();
            return again;
        },
        [this, readHistory](Reconnected again) {
            listener_ = std::move(again.listener);
            reader_ = std::move(again.reader);
            role_ = again.standing.role;
            mode_ = again.standing.mode;
            again.arrival.writesAtStart = log_.writesSent();  // read-only meanwhile: nothing was written
            watchSocket();
            pause_ = firstPause_;
            setState(State::Live);
            take(again.arrival);
            settleInDoubt(readHistory ? &again.history : nullptr);
            log_.setReadOnly(connectedReadOnlyReason());
        });
}

QString TeamLiveUpdates::reviewerReason() {
    return tr(
        "you are a reviewer in this project: you read every decision and record none (the server refuses "
        "a reviewer's decisions; ask the project's owner for the curator role to curate)");
}

QString TeamLiveUpdates::connectedReadOnlyReason() const {
    return role_ == project::TeamRole::Reviewer ? reviewerReason() : QString();
}

void TeamLiveUpdates::holdInDoubt(const project::Decision& decision) {
    const auto shown = log_.currentDecision(decision.mention);
    inDoubt_.push_back({decision, shown ? shown->id : 0});
    Q_EMIT stateChanged(state_);
}

void TeamLiveUpdates::holdChangeInDoubt(std::int64_t id, bool undo) {
    QString what = tr("the last undone decision");
    for (const auto& [key, decision] : log_.decisionsInEffect())
        if (decision.id == id) what = describeDecision(decision);
    changesInDoubt_.push_back({id, undo, what});
    Q_EMIT stateChanged(state_);
}

void TeamLiveUpdates::settleInDoubt(const std::vector<project::Decision>* history) {
    const std::vector<InDoubt> inDoubt = std::exchange(inDoubt_, {});
    const std::vector<ChangeInDoubt> changes = std::exchange(changesInDoubt_, {});
    const std::string login = log_.login().toStdString();
    for (const InDoubt& entry : inDoubt) {
        const project::Decision& sent = entry.decision;
        const auto now = log_.currentDecision(sent.mention);
        // The catch-up read every change above the revision seen before the loss: a decision
        // of this login on the mention, other than the one shown before and as it was sent, is it.
        const bool stored = now && now->id != entry.shownBefore && now->login == login && now->kind == sent.kind &&
                            now->newLink == sent.newLink && now->curator == sent.curator;
        if (stored) {
            Q_EMIT decisionOutcomeKnown(tr("Caught up with the server: it did store “%1” before the connection was "
                                           "lost. It is shown now, and Undo takes it back.")
                                            .arg(describeDecision(sent)),
                                        true);
        } else {
            Q_EMIT decisionOutcomeKnown(tr("Caught up with the server: it did not store “%1” (the connection was lost "
                                           "before it committed). Nothing of it is shown; decide it again if you still "
                                           "mean it.")
                                            .arg(describeDecision(sent)),
                                        false);
        }
    }
    if (history != nullptr) {
        for (const ChangeInDoubt& change : changes) {
            const auto found = std::find_if(history->begin(), history->end(),
                                            [&change](const project::Decision& d) { return d.id == change.id; });
            const bool done = found != history->end() && found->state == project::DecisionState::Done;
            const bool happened = change.undo ? !done : done;
            const QString message =
                change.undo ? (happened ? tr("Caught up with the server: it did undo “%1” before the connection was "
                                             "lost. The view shows it undone now.")
                                        : tr("Caught up with the server: it did not undo “%1”; it is still in effect. "
                                             "Undo it again if you still mean it."))
                            : (happened ? tr("Caught up with the server: it did redo the decision before the "
                                             "connection was lost. The view shows it now.")
                                        : tr("Caught up with the server: it did not redo the decision; redo it again "
                                             "if you still mean it."));
            Q_EMIT decisionOutcomeKnown(change.undo ? message.arg(change.what) : message, happened);
        }
        log_.restoreUndoStack(*history);
    }
    if (!inDoubt.empty() || !changes.empty()) Q_EMIT stateChanged(state_);
}

}  // namespace linkscope::ui
