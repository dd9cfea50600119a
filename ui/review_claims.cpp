#include "review_claims.h"

#include <QDateTime>

#include <algorithm>
#include <utility>

#include "decision_log.h"
#include "project/project_store.h"
#include "review_claims_worker.h"
#include "team_live_updates.h"

namespace linkscope::ui {

namespace {

// "14:32" in local time from the server's UTC timestamp; the text as it is when it does not parse.
QString localTime(const std::string& expires) {
    const QDateTime when = QDateTime::fromString(QString::fromStdString(expires), Qt::ISODateWithMs);
    return when.isValid() ? when.toLocalTime().toString(QStringLiteral("HH:mm")) : QString::fromStdString(expires);
}

}  // namespace

ReviewClaims::ReviewClaims(DecisionLog& decisions, const TeamLiveUpdates& live, QObject* parent)
    : QObject(parent), log_(decisions), live_(live) {
    qRegisterMetaType<ClaimsAnswer>();
    thread_.setObjectName(QStringLiteral("review claims"));
    // The timer asks for no second renewal while one is on its way (a slow server).
    connect(&renewal_, &QTimer::timeout, this, [this] {
        if (renewing_ == 0) renew();
    });
    // A decision on the mention held turns its claim into a lasting one on the server: nothing
    // to renew or release any more. Another's decision arriving on it frees this login's claim.
    connect(&log_, &DecisionLog::decisionChanged, this, [this](const project::MentionKey& key) {
        if (!held_ || key != *held_) return;
        const auto decision = log_.currentDecision(key);
        if (decision && QString::fromStdString(decision->login) != log_.login()) release();
        held_.reset();
    });
    // Connected again after a loss: the claim held is renewed and what others hold read at once.
    connect(&live_, &TeamLiveUpdates::stateChanged, this, [this](TeamLiveUpdates::State state) {
        if (state == TeamLiveUpdates::State::Lost) lost_ = true;
        if (state != TeamLiveUpdates::State::Live || !std::exchange(lost_, false)) return;
        if (active_) renew();
    });
}

ReviewClaims::~ReviewClaims() { stop(); }

void ReviewClaims::setTimeToLive(std::chrono::seconds timeToLive) {
    timeToLive_ = std::max(timeToLive, std::chrono::seconds{3});
    renewal_.setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(timeToLive_) / 3);
}

template <class Request>
void ReviewClaims::ask(Request&& request) {
    QMetaObject::invokeMethod(
        worker_.get(), [worker = worker_.get(), request = std::forward<Request>(request)] { request(*worker); },
        Qt::QueuedConnection);
}

void ReviewClaims::start() {
    stop();
    active_ = log_.onServer();
    mode_ = {};
    if (!active_) return;
    // The worker connects with the store's own address (the connect_timeout it was opened with).
    worker_ = std::make_unique<ReviewClaimsWorker>(log_.store()->file().string());
    worker_->moveToThread(&thread_);
    connect(worker_.get(), &ReviewClaimsWorker::answered, this, &ReviewClaims::take);
    thread_.start();
    ++pending_;
    ask([generation = generation_](ReviewClaimsWorker& worker) { worker.read(generation); });
    setTimeToLive(timeToLive_);
    renewal_.start();
}

void ReviewClaims::stop() {
    renewal_.stop();
    if (active_ && log_.isOpen()) release();
    if (worker_) {
        // After the requests asked before (the release above among them), in their order.
        ask([thread = &thread_](ReviewClaimsWorker& worker) {
            worker.close();
            thread->quit();
        });
        thread_.wait();
        worker_.reset();
    }
    ++generation_;  // answers still on their way to this thread are dropped
    held_.reset();
    claiming_ = false;
    asked_.clear();
    pending_ = 0;
    renewing_ = 0;
    readBackOwed_ = false;
    readingBack_ = false;
    others_.clear();
    othersByDocument_.clear();
    lastError_.clear();
    active_ = false;
}

bool ReviewClaims::usable() const {
    return active_ && worker_ && log_.isOpen() && live_.state() != TeamLiveUpdates::State::Lost;
}

bool ReviewClaims::reviewer() const { return live_.role() == project::TeamRole::Reviewer; }

bool ReviewClaims::overlapDocument(const std::string& document) const {
    return blind() && project::overlapDocument(mode_, document);
}

QString ReviewClaims::modeText() const {
    if (!active_) return {};
    if (mode_.mode == project::TeamMode::Shared) return tr("shared: every curator sees every decision");
    return tr("blind: you see your own decisions and the model's proposals until adjudication; %1 % of the "
              "documents go to two curators")
        .arg(mode_.overlapShare * 100.0, 0, 'g', 3);
}

void ReviewClaims::take(const ClaimsAnswer& answer) {
    if (answer.generation != generation_) return;
    const bool answers = answer.request != ClaimsAnswer::Request::Release;
    if (answers) pending_ = std::max(pending_ - 1, 0);
    if (answer.request == ClaimsAnswer::Request::Renewal) renewing_ = std::max(renewing_ - 1, 0);
    if (!answer.error.isEmpty()) {
        lastError_ = answer.error;
        // Said at once: the live updates turn the window read-only and reconnect.
        if (answer.disconnected) Q_EMIT log_.connectionLost(answer.error);
    }
    if (answer.request == ClaimsAnswer::Request::ReadBack) {
        takeReadBack(answer);
        return;
    }
    const project::TeamModeSettings modeBefore = mode_;
    const auto holdersBefore = holders();
    if (answer.mode) takeMode(*answer.mode);
    if (answer.claims) takeClaims(*answer.claims);
    const bool changed = answer.request == ClaimsAnswer::Request::Read || holders() != holdersBefore ||
                         modeBefore.mode != mode_.mode || modeBefore.overlapShare != mode_.overlapShare;
    if (answer.request == ClaimsAnswer::Request::Claim) {
        claiming_ = false;
        std::optional<QueuedMention> claimed;
        if (answer.claimed) {
            held_ = answer.claimed;
            const auto priority = asked_.find(*answer.claimed);
            claimed = QueuedMention{*answer.claimed, priority == asked_.end() ? 0.0 : priority->second};
        }
        asked_.clear();
        // The views read the claims again when others' changed (the curator's own is on show).
        if (changed) Q_EMIT claimsChanged();
        Q_EMIT nextAnswered(claimed, askedQueueSize_);
        return;
    }
    if (changed) Q_EMIT claimsChanged();
}

void ReviewClaims::takeMode(const project::TeamModeSettings& mode) {
    const project::TeamMode before = mode_.mode;
    mode_ = mode;
    // Switched to blind while open: the decisions of others read before the switch go.
    if (before == project::TeamMode::Shared && mode_.mode == project::TeamMode::Blind) {
        const auto& inEffect = log_.decisionsInEffect();
        const bool others = std::any_of(inEffect.begin(), inEffect.end(), [this](const auto& entry) {
            return QString::fromStdString(entry.second.login) != log_.login();
        });
        if (others) readBackOwed_ = true;
    }
    if (readBackOwed_ && !readingBack_) askReadBack();
}

void ReviewClaims::askReadBack() {
    if (!usable()) return;
    readingBack_ = true;
    readBackWrites_ = log_.writesSent();
    ++pending_;
    ask([generation = generation_](ReviewClaimsWorker& worker) { worker.readBack(generation); });
}

void ReviewClaims::takeReadBack(const ClaimsAnswer& answer) {
    readingBack_ = false;
    if (!answer.history) return;  // failed: asked again with the next reading of the mode
    if (log_.writesSent() != readBackWrites_) {
        // The log wrote while this was read: what was read may predate that write.
        askReadBack();
        return;
    }
    readBackOwed_ = false;
    log_.readBackFrom(*answer.history);
}

void ReviewClaims::takeClaims(std::vector<project::Claim> claims) {
    const std::string me = log_.login().toStdString();
    others_.clear();
    othersByDocument_.clear();
    for (project::Claim& claim : claims) {
        if (claim.login == me) continue;
        auto& held = others_[claim.mention];
        if (held.empty()) ++othersByDocument_[{claim.mention.split, claim.mention.document}];
        held.push_back(std::move(claim));
    }
}

void ReviewClaims::release() {
    if (!held_ || !usable()) return;
    const project::MentionKey key = *held_;
    held_.reset();
    ask([generation = generation_, key](ReviewClaimsWorker& worker) { worker.release(generation, key); });
}

bool ReviewClaims::claimNext(const std::vector<QueuedMention>& queue) {
    lastError_.clear();
    if (!active_) return false;
    if (!usable()) {
        lastError_ = log_.isReadOnly() ? tr("No mention can be claimed: %1").arg(log_.readOnlyReason())
                                       : tr("No project is open");
        return false;
    }
    if (claiming_) return true;  // the claim on its way answers this press too
    release();
    const int queueSize = static_cast<int>(queue.size());
    if (reviewer()) {
        const auto free = std::find_if(queue.begin(), queue.end(),
                                       [this](const QueuedMention& entry) { return !takenByOthers(entry.key); });
        Q_EMIT nextAnswered(free == queue.end() ? std::nullopt : std::optional(*free), queueSize);
        return true;
    }
    std::vector<project::MentionKey> byGain;
    byGain.reserve(queue.size());
    asked_.clear();
    for (const QueuedMention& entry : queue)
        if (!takenByOthers(entry.key)) {
            byGain.push_back(entry.key);
            asked_.emplace(entry.key, entry.priority);
        }
    askedQueueSize_ = queueSize;
    claiming_ = true;
    ++pending_;
    ask([generation = generation_, byGain = std::move(byGain), ttl = timeToLive_](ReviewClaimsWorker& worker) {
        worker.claimNext(generation, byGain, ttl);
    });
    return true;
}

void ReviewClaims::moveTo(const std::optional<project::MentionKey>& current) {
    if (held_ && current != held_) release();
}

void ReviewClaims::renew() {
    if (!usable()) return;
    ++pending_;
    ++renewing_;
    ask([generation = generation_, holding = held_.has_value() || claiming_,
         ttl = timeToLive_](ReviewClaimsWorker& worker) { worker.renew(generation, holding, ttl); });
}

std::map<project::MentionKey, std::vector<std::string>> ReviewClaims::holders() const {
    std::map<project::MentionKey, std::vector<std::string>> logins;
    for (const auto& [key, claims] : others_)
        for (const project::Claim& claim : claims)
            logins[key].push_back(claim.login + (claim.expires == "infinity" ? "=" : ""));
    return logins;
}

bool ReviewClaims::takenByOthers(const project::MentionKey& key) const {
    const auto found = others_.find(key);
    return found != others_.end() &&
           static_cast<int>(found->second.size()) >= project::claimCapacity(mode_, key.document);
}

QString ReviewClaims::claimNote(const project::MentionKey& key) const {
    QStringList parts;
    if (held_ && *held_ == key) parts << tr("claimed by you");
    if (const auto found = others_.find(key); found != others_.end())
        for (const project::Claim& claim : found->second) {
            const QString who = QString::fromStdString(claim.login).toHtmlEscaped();
            if (claim.expires == "infinity")
                parts << (blind() ? tr("handed to %1").arg(who) : tr("decided by %1").arg(who));
            else
                parts << tr("claimed by %1 until %2").arg(who, localTime(claim.expires));
        }
    return parts.join(QStringLiteral("; "));
}

QString ReviewClaims::documentNote(const std::string& split, const std::string& document) const {
    if (!active_) return {};
    QStringList parts;
    if (overlapDocument(document)) parts << tr("overlap: given to two curators, for the agreement");
    if (const auto found = othersByDocument_.find({split, document}); found != othersByDocument_.end())
        parts << tr("%n mention(s) claimed by other curators", nullptr, found->second);
    return parts.join(QStringLiteral("; "));
}

}  // namespace linkscope::ui
