#pragma once
// The status bar's word on a project on a server: who is logged in, with which role in the
// project (curator, adjudicator, reviewer, or the owner), the project's mode (shared or blind),
// whether the connection is encrypted, and whether the window is live or, the connection lost,
// read-only and reconnecting; a decision whose saving the loss left in doubt is counted until
// the catch-up. A reviewer's window says it is read-only, and why. Hidden for a project file.
#include <QLabel>

#include "project/team_work.h"

namespace linkscope::ui {

class DecisionLog;
class ReviewClaims;
class TeamLiveUpdates;

class TeamStatusLabel : public QLabel {
    Q_OBJECT
public:
    /// Follows `live` and `decisions`, which must outlive the label.
    TeamStatusLabel(const TeamLiveUpdates* live, const DecisionLog* decisions, QWidget* parent = nullptr);

    /// Shows the mode `claims` reads again while the project is open (an owner may switch it),
    /// rather than the one read when the connection became live; `claims` must outlive the label.
    void followMode(const ReviewClaims* claims);

    /// The text shown for the present state (also the label's text), for tests and tooltips.
    QString describe() const;

private:
    void refresh();
    project::TeamMode mode() const;

    const TeamLiveUpdates* live_;
    const DecisionLog* decisions_;
    const ReviewClaims* claims_ = nullptr;
};

}  // namespace linkscope::ui
