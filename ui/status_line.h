#pragma once
// The main window's status bar: the message log's latest line (a link in it is handed on as
// linkActivated), and a progress bar with Cancel while a task (loading, merging) runs.
#include <QObject>

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;

namespace linkscope::ui {

class MessageLog;

class StatusLine : public QObject {
    Q_OBJECT
public:
    /// Fills `bar`, which owns the widgets; `log` must outlive them.
    StatusLine(MessageLog* log, QStatusBar* bar);

    /// A task starts: the progress bar at 0 and Cancel are shown.
    void startTask();
    void setProgress(int percent);
    /// The task ended: the progress bar and Cancel are hidden.
    void finishTask();

Q_SIGNALS:
    void cancelRequested();
    void linkActivated(const QString& link);

private:
    QLabel* label_;
    QProgressBar* progress_;
    QPushButton* cancel_;
};

}  // namespace linkscope::ui
