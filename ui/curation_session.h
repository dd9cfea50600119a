#pragma once
// The curation of an open project, on the GUI thread: the owner of its three parts and the one
// place that opens and closes them together, in order.
// - decisions(): the decision log (decision_log.h): the project file, the decisions in effect,
//   undo and redo; the one entry for every decision.
// - rankers(): the ranker host (ranker_host.h): the sparse ranker, a linked trained run, the
//   proposals, and the run's datastore, which follows the log's decisions.
// - merge(): merging another curator's file (merge_job.h), recorded through the log.
// - live(): for a project on a server, the other curators' decisions as they are committed, and
//   the connection's faults (team_live_updates.h).
// - claims(): for a project on a server, the review queue handed out through claims, and the
//   project's mode (review_claims.h).
// The owner also wires the log to the host (a mention without a decision has the link the
// active ranker proposes) and gathers the parts' errors into one signal.
#include <QObject>
#include <QString>

#include <memory>

#include "decision_log.h"
#include "merge_job.h"
#include "ranker_host.h"
#include "review_claims.h"
#include "team_live_updates.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class CurationSession : public QObject {
    Q_OBJECT
public:
    explicit CurationSession(QObject* parent = nullptr);
    ~CurationSession() override;

    DecisionLog* decisions() { return &decisions_; }
    const DecisionLog* decisions() const { return &decisions_; }
    RankerHost* rankers() { return &rankers_; }
    const RankerHost* rankers() const { return &rankers_; }
    MergeJob* merge() { return &merge_; }
    TeamLiveUpdates* live() { return &live_; }
    ReviewClaims* claims() { return &claims_; }
    const ReviewClaims* claims() const { return &claims_; }

    /// Opens (or creates from the project's manifest) the project file in the decision log and
    /// starts building the sparse ranker. Returns an error message, empty on success. `opened`:
    /// a project on a server connected on a worker (DecisionLog::open).
    QString open(std::shared_ptr<const LoadedProject> project, const QString& projectFile, OpenedTeamStore opened = {});
    /// Stops the merge and the rankers' workers, then closes the project file.
    void close();

Q_SIGNALS:
    /// An error of any part (the log's, the host's): one place for a view to listen.
    void errorOccurred(const QString& message);

private:
    // In this order: the host follows the log and the merge records through it; members are
    // destroyed in reverse, each after the parts that use it.
    DecisionLog decisions_;
    RankerHost rankers_{decisions_};
    MergeJob merge_{decisions_};
    TeamLiveUpdates live_{decisions_};
    ReviewClaims claims_{decisions_, live_};
};

}  // namespace linkscope::ui
