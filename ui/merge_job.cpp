#include "merge_job.h"

#include <QtConcurrent>

#include <filesystem>
#include <string_view>

#include "curation/curator_merge.h"
#include "decision_log.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "util/progress.h"

namespace linkscope::ui {

MergeJob::MergeJob(DecisionLog& decisions, QObject* parent) : QObject(parent), decisions_(decisions) {
    pool_.setMaxThreadCount(1);
    // A merge ended: whatever it recorded is read back, a prefix of it when it stopped early.
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        const Outcome outcome = watcher_.future().resultCount() > 0 ? watcher_.result() : Outcome{};
        setUnderWay(false);
        decisions_.readBackStore();
        Q_EMIT finished(outcome.summary, outcome.error);
    });
}

MergeJob::~MergeJob() { cancelAndWait(); }

void MergeJob::setUnderWay(bool underWay) {
    underWay_ = underWay;
    decisions_.setMergeUnderWay(underWay);
}

bool MergeJob::start(const QString& file) {
    if (!decisions_.isOpen() || underWay_) return false;
    setUnderWay(true);
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelled_ = cancelled;
    const std::filesystem::path into = decisions_.projectFile().toStdString();
    const std::filesystem::path from = file.toStdString();
    watcher_.setFuture(QtConcurrent::run(
        &pool_, [this, into, from, file, cancelled, project = decisions_.sharedProject()]() -> Outcome {
            ProgressSink progress;
            progress.report = [this](std::string_view, double fraction) {
                const int percent = static_cast<int>(fraction * 100);
                QMetaObject::invokeMethod(
                    this, [this, percent] { Q_EMIT this->progress(percent); }, Qt::QueuedConnection);
            };
            progress.cancelled = [cancelled] { return cancelled->load(); };
            try {
                // Its own connection: the GUI's store belongs to the GUI thread.
                auto target = project::ProjectStore::open(into);
                const auto source = project::ProjectStore::open(from);
                // The open project's corpora: a decision of the other file that names none of its
                // mentions refuses the merge (curation::MergeOptions::mentionExists). Built here, off
                // the GUI thread: a set of every mention of the project.
                curation::MergeOptions options;
                if (project) options.mentionExists = curation::mentionLookup(project->splits);
                const curation::MergeSummary merged = curation::mergeDecisions(target, source, options, progress);
                return {tr("Merged %n decision(s) from %1 (%2 already here); %3 disagreement(s) to adjudicate", nullptr,
                           static_cast<int>(merged.imported))
                            .arg(file)
                            .arg(merged.alreadyPresent)
                            .arg(merged.openDisagreements),
                        {}};
            } catch (const Cancelled&) {
                return {{}, tr("the merge was cancelled; the decisions merged before stay (merge again to go on)")};
            } catch (const std::exception& error) {
                return {{}, QString::fromUtf8(error.what())};
            }
        }));
    return true;
}

void MergeJob::cancel() {
    if (cancelled_) cancelled_->store(true);
}

void MergeJob::cancelAndWait() {
    cancel();
    watcher_.waitForFinished();  // its own pool: waits for the merge alone
    setUnderWay(false);
}

}  // namespace linkscope::ui
