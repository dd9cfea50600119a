#include "team_status_label.h"

#include "decision_log.h"
#include "review_claims.h"
#include "team_live_updates.h"

namespace linkscope::ui {
namespace {

QString roleText(const TeamLiveUpdates& live) {
    if (!live.role()) return TeamStatusLabel::tr("owner");
    switch (*live.role()) {
        case project::TeamRole::Curator:
            return TeamStatusLabel::tr("curator");
        case project::TeamRole::Adjudicator:
            return TeamStatusLabel::tr("adjudicator");
        case project::TeamRole::Reviewer:
            return TeamStatusLabel::tr("<span style='color:#b60'>reviewer, read-only</span>");
    }
    return {};
}

QString modeText(project::TeamMode mode) {
    return mode == project::TeamMode::Blind ? TeamStatusLabel::tr("blind") : TeamStatusLabel::tr("shared");
}

}  // namespace

TeamStatusLabel::TeamStatusLabel(const TeamLiveUpdates* live, const DecisionLog* decisions, QWidget* parent)
    : QLabel(parent), live_(live), decisions_(decisions) {
    setObjectName(QStringLiteral("teamStatus"));
    setTextFormat(Qt::RichText);
    connect(live_, &TeamLiveUpdates::stateChanged, this, &TeamStatusLabel::refresh);
    connect(decisions_, &DecisionLog::readOnlyChanged, this, &TeamStatusLabel::refresh);
    refresh();
}

void TeamStatusLabel::followMode(const ReviewClaims* claims) {
    claims_ = claims;
    connect(claims_, &ReviewClaims::claimsChanged, this, &TeamStatusLabel::refresh);
    refresh();
}

project::TeamMode TeamStatusLabel::mode() const {
    return claims_ && claims_->active() ? claims_->mode().mode : live_->mode();
}

QString TeamStatusLabel::describe() const {
    const QString login = decisions_->login().toHtmlEscaped();
    switch (live_->state()) {
        case TeamLiveUpdates::State::Off:
            return {};
        case TeamLiveUpdates::State::Connecting:
            return tr("Team project: connecting as %1…").arg(login);
        case TeamLiveUpdates::State::Live: {
            const QString encryption = live_->encrypted() ? tr("<span style='color:#080'>encrypted</span>")
                                                          : tr("<span style='color:#b60'>not encrypted</span>");
            return tr("Team project: %1 · %2 · %3 · %4 · live")
                .arg(login, roleText(*live_), modeText(mode()), encryption);
        }
        case TeamLiveUpdates::State::Lost:
            if (live_->decisionsInDoubt() > 0)
                return tr(
                    "<span style='color:#a00'>Connection lost: read-only, reconnecting… %n decision(s) may or "
                    "may not be saved until the catch-up</span>",
                    nullptr, live_->decisionsInDoubt());
            return tr("<span style='color:#a00'>Connection lost: read-only, reconnecting…</span>");
    }
    return {};
}

void TeamStatusLabel::refresh() {
    setText(describe());
    setVisible(live_->state() != TeamLiveUpdates::State::Off);
    QString tip = tr("Server: %1").arg(decisions_->projectFile().toHtmlEscaped());
    if (live_->state() == TeamLiveUpdates::State::Live && !live_->encrypted())
        tip +=
            tr("<br>The connection is not encrypted: give sslmode=require (or verify-full) in the address "
               "to have it encrypted.");
    if (!live_->detail().isEmpty()) tip += QStringLiteral("<br>") + live_->detail().toHtmlEscaped();
    if (live_->state() == TeamLiveUpdates::State::Live) {
        if (!live_->role())
            tip += tr("<br>Role: the project's owner, whom the team's roles do not bind.");
        else if (*live_->role() == project::TeamRole::Reviewer)
            tip += tr("<br>Read-only: %1.").arg(TeamLiveUpdates::reviewerReason().toHtmlEscaped());
        tip += mode() == project::TeamMode::Blind
                   ? tr("<br>Blind mode: a curator sees only their own decisions and the model's proposals, until "
                        "adjudication.")
                   : tr("<br>Shared mode: everyone sees every decision.");
    }
    if (decisions_->isReadOnly() && live_->state() == TeamLiveUpdates::State::Lost)
        tip += tr("<br>Curation is off until the connection is back.");
    setToolTip(tip);
}

}  // namespace linkscope::ui
