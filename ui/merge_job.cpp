#include "merge_job.h"

#include <filesystem>
#include <string_view>

#include "curation/curator_merge.h"
#include "decision_log.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "util/progress.h"

namespace linkscope::ui {

MergeJob::MergeJob(DecisionLog& decisions, QObject* parent) : QObject(parent), decisions_(decisions) {
    connect(&job_, &BackgroundJob::cancelled, this, [this] {
        onEnded({}, tr("the merge was cancelled; nothing of it was recorded (the merge is one transaction)"));
    });
    connect(&job_, &BackgroundJob::failed, this, [this](const QString& message) { onEnded({}, message); });
}

MergeJob::~MergeJob() { cancelAndWait(); }

void MergeJob::onEnded(const QString& summary, const QString& error) {
    setUnderWay(false);
    decisions_.readBackStore();
    Q_EMIT finished(summary, error);
}

void MergeJob::setUnderWay(bool underWay) {
    underWay_ = underWay;
    decisions_.setMergeUnderWay(underWay);
}

bool MergeJob::start(const QString& file) {
    if (!decisions_.isOpen() || underWay_) return false;
    setUnderWay(true);
    const std::filesystem::path into = decisions_.projectFile().toStdString();
    const std::filesystem::path from = file.toStdString();
    const auto merge = [this, into, from, file, project = decisions_.sharedProject()](const JobContext& context) {
        ProgressSink progress;
        progress.report = [this, &context](std::string_view, double fraction) {
            const int percent = static_cast<int>(fraction * 100);
            context.post([this, percent] { Q_EMIT this->progress(percent); });
        };
        progress.cancelled = [&context] { return context.isCancelled(); };
        // Its own connection: the GUI's store belongs to the GUI thread.
        auto target = project::ProjectStore::open(into);
        const auto source = project::ProjectStore::open(from);
        // The open project's corpora: a decision of the other file that names none of its
        // mentions refuses the merge (curation::MergeOptions::mentionExists). Built here, off
        // the GUI thread: a set of every mention of the project.
        curation::MergeOptions options;
        if (project) options.mentionExists = curation::mentionLookup(project->splits);
        const curation::MergeSummary merged = curation::mergeDecisions(target, source, options, progress);
        return tr("Merged %n decision(s) from %1 (%2 already here); %3 disagreement(s) to adjudicate", nullptr,
                  static_cast<int>(merged.imported))
            .arg(file)
            .arg(merged.alreadyPresent)
            .arg(merged.openDisagreements);
    };
    job_.start(merge, [this](const QString& summary) { onEnded(summary, {}); });
    return true;
}

void MergeJob::cancel() { job_.cancel(); }

void MergeJob::cancelAndWait() {
    cancel();
    job_.waitForFinished();  // waits for the merge alone
    setUnderWay(false);
}

}  // namespace linkscope::ui
