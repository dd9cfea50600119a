#pragma once
// The status bar's word on a project on a server: who is logged in, whether the connection is
// encrypted, and whether the window is live or, the connection lost, read-only and
// reconnecting. Hidden for a project file.
#include <QLabel>

namespace linkscope::ui {

class DecisionLog;
class TeamLiveUpdates;

class TeamStatusLabel : public QLabel {
    Q_OBJECT
public:
    /// Follows `live` and `decisions`, which must outlive the label.
    TeamStatusLabel(const TeamLiveUpdates* live, const DecisionLog* decisions, QWidget* parent = nullptr);

    /// The text shown for the present state (also the label's text), for tests and tooltips.
    QString describe() const;

private:
    void refresh();

    const TeamLiveUpdates* live_;
    const DecisionLog* decisions_;
};

}  // namespace linkscope::ui
