#pragma once
// Merging another curator's project file into the open one (core/curation/curator_merge.h), on a
// worker of its own, through its own connection to the project file (a commit per decision waits
// for the disk). The merged decisions reach the GUI through the decision log, as every decision
// does: at the end the log reads the store back (DecisionLog::readBackStore), which announces
// each decision now in effect and rebuilds the undo stack. Undo and redo are refused meanwhile.
#include <QObject>
#include <QString>

#include "background_job.h"

namespace linkscope::ui {

class DecisionLog;

class MergeJob : public QObject {
    Q_OBJECT
public:
    /// Merges into the project file `decisions` has open; `decisions` must outlive the job.
    explicit MergeJob(DecisionLog& decisions, QObject* parent = nullptr);
    ~MergeJob() override;

    /// Starts recording the decisions in effect of another curator's project file into the open
    /// one: progress while it runs, then the decisions are read back (decisionsReloaded of the
    /// log) and finished says what was merged or why not. False when no project is open or a
    /// merge is under way.
    bool start(const QString& file);
    /// Stops a merge under way before its next decision (the ones merged stay; finished follows).
    void cancel();
    /// Cancels and waits for the worker (closing the project): nothing is read back then.
    void cancelAndWait();
    /// From start() until the decisions are read back (finished).
    bool isUnderWay() const { return underWay_; }

Q_SIGNALS:
    void progress(int percent);
    /// A merge ended: `summary` says what was merged, `error` why it stopped ("" when it did not).
    void finished(const QString& summary, const QString& error);

private:
    void setUnderWay(bool underWay);
    /// The merge ended (error empty: it succeeded): whatever it recorded is read back, a prefix
    /// of it when it stopped early.
    void onEnded(const QString& summary, const QString& error);

    DecisionLog& decisions_;
    /// A job of its own, so that closing the project waits for this job alone.
    BackgroundJob job_;
    bool underWay_ = false;
};

}  // namespace linkscope::ui
