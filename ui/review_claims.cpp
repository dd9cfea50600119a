#include "review_claims.h"

#include <QDateTime>

#include <algorithm>
#include <exception>
#include <span>

#include "decision_log.h"
#include "project/project_store.h"
#include "review_queue_order.h"
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
    connect(&renewal_, &QTimer::timeout, this, &ReviewClaims::renew);
    // A decision on the mention held turns its claim into a lasting one on the server: nothing
    // to renew or release any more. Another's decision arriving on it frees this login's claim.
    connect(&log_, &DecisionLog::decisionChanged, this, [this](const project::MentionKey& key) {
        if (!held_ || key != *held_) return;
        const auto decision = log_.currentDecision(key);
        if (decision && QString::fromStdString(decision->login) != log_.login()) release();
        held_.reset();
    });
}

void ReviewClaims::setTimeToLive(std::chrono::seconds timeToLive) {
    timeToLive_ = std::max(timeToLive, std::chrono::seconds{3});
    renewal_.setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(timeToLive_) / 3);
}

void ReviewClaims::start() {
    stop();
    active_ = log_.onServer();
    mode_ = {};
    if (!active_) return;
    readMode();
    readClaims();
    setTimeToLive(timeToLive_);
    renewal_.start();
    Q_EMIT claimsChanged();
}

void ReviewClaims::stop() {
    renewal_.stop();
    if (active_ && log_.isOpen()) release();
    held_.reset();
    others_.clear();
    othersByDocument_.clear();
    lastError_.clear();
    active_ = false;
}

bool ReviewClaims::usable() const { return active_ && log_.isOpen() && live_.state() != TeamLiveUpdates::State::Lost; }

bool ReviewClaims::reviewer() const { return live_.role() == project::TeamRole::Reviewer; }

template <class Call>
bool ReviewClaims::guarded(const QString& what, Call&& call) {
    try {
        call(*log_.store());
        return true;
    } catch (const project::StoreDisconnected& lost) {
        lastError_ = tr("%1: %2").arg(what, QString::fromUtf8(lost.what()));
        // Said at once: the live updates turn the window read-only and reconnect.
        Q_EMIT log_.connectionLost(QString::fromUtf8(lost.what()));
    } catch (const std::exception& error) {
        lastError_ = tr("%1: %2").arg(what, QString::fromUtf8(error.what()));
    }
    return false;
}

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

void ReviewClaims::readMode() {
    const project::TeamMode before = mode_.mode;
    guarded(tr("Cannot read the project's mode"), [this](project::ProjectStore& store) { mode_ = store.teamMode(); });
    // Switched to blind while open: the decisions of others read before the switch go.
    if (before == project::TeamMode::Shared && mode_.mode == project::TeamMode::Blind) {
        const auto& inEffect = log_.decisionsInEffect();
        const bool others = std::any_of(inEffect.begin(), inEffect.end(), [this](const auto& entry) {
            return QString::fromStdString(entry.second.login) != log_.login();
        });
        if (others) log_.readBackStore();
    }
}

void ReviewClaims::readClaims() {
    std::vector<project::Claim> claims;
    if (!guarded(tr("Cannot read the claims"), [&claims](project::ProjectStore& store) { claims = store.claims(); }))
        return;
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
    guarded(tr("Cannot release the claim"), [&key](project::ProjectStore& store) { store.releaseClaim(key); });
}

std::optional<project::MentionKey> ReviewClaims::claimNext(const std::vector<QueuedMention>& queue) {
    lastError_.clear();
    if (!active_) return std::nullopt;
    if (!usable()) {
        lastError_ = log_.isReadOnly() ? tr("No mention can be claimed: %1").arg(log_.readOnlyReason())
                                       : tr("No project is open");
        return std::nullopt;
    }
    release();
    if (reviewer()) {
        const auto free = std::find_if(queue.begin(), queue.end(),
                                       [this](const QueuedMention& entry) { return !takenByOthers(entry.key); });
        return free == queue.end() ? std::nullopt : std::optional(free->key);
    }
    std::vector<project::MentionKey> byGain;
    byGain.reserve(queue.size());
    for (const QueuedMention& entry : queue)
        if (!takenByOthers(entry.key)) byGain.push_back(entry.key);
    std::vector<project::MentionKey> claimed;
    guarded(tr("No mention could be claimed"), [&](project::ProjectStore& store) {
        claimed = store.claimNext(std::span<const project::MentionKey>(byGain), 1, timeToLive_);
    });
    const auto holdersBefore = holders();
    readClaims();
    if (!claimed.empty()) held_ = claimed.front();
    // The views read the claims again when others' changed (the curator's own is on show).
    if (holders() != holdersBefore) Q_EMIT claimsChanged();
    return held_;
}

void ReviewClaims::moveTo(const std::optional<project::MentionKey>& current) {
    if (held_ && current != held_) release();
}

void ReviewClaims::renew() {
    if (!usable()) return;
    if (held_)
        guarded(tr("Cannot renew the claim"), [this](project::ProjectStore& store) { store.renewClaims(timeToLive_); });
    const project::TeamModeSettings before = mode_;
    readMode();
    const auto holdersBefore = holders();
    readClaims();
    if (holders() != holdersBefore || before.mode != mode_.mode || before.overlapShare != mode_.overlapShare)
        Q_EMIT claimsChanged();
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
