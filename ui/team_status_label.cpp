#include "team_status_label.h"

#include "decision_log.h"
#include "team_live_updates.h"

namespace linkscope::ui {

TeamStatusLabel::TeamStatusLabel(const TeamLiveUpdates* live, const DecisionLog* decisions, QWidget* parent)
    : QLabel(parent), live_(live), decisions_(decisions) {
    setObjectName(QStringLiteral("teamStatus"));
    setTextFormat(Qt::RichText);
    connect(live_, &TeamLiveUpdates::stateChanged, this, &TeamStatusLabel::refresh);
    connect(decisions_, &DecisionLog::readOnlyChanged, this, &TeamStatusLabel::refresh);
    refresh();
}

QString TeamStatusLabel::describe() const {
    const QString login = decisions_->login().toHtmlEscaped();
    switch (live_->state()) {
        case TeamLiveUpdates::State::Off:
            return {};
        case TeamLiveUpdates::State::Connecting:
            return tr("Team project: connecting as %1…").arg(login);
        case TeamLiveUpdates::State::Live:
            return live_->encrypted()
                       ? tr("Team project: %1 · <span style='color:#080'>encrypted</span> · live").arg(login)
                       : tr("Team project: %1 · <span style='color:#b60'>not encrypted</span> · live").arg(login);
        case TeamLiveUpdates::State::Lost:
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
    if (decisions_->isReadOnly()) tip += tr("<br>Curation is off until the connection is back.");
    setToolTip(tip);
}

}  // namespace linkscope::ui
