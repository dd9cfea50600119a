#include "project_file_actions.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QStringList>

#include "adjudication_dialog.h"
#include "curation_controller.h"
#include "curation_session.h"
#include "export_dialog.h"
#include "export_job.h"
#include "message_log.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "project_context.h"
#include "status_line.h"
#include "team_connection_dialog.h"

namespace linkscope::ui {

ProjectFileActions::ProjectFileActions(CurationSession* session, const ProjectContext* context,
                                       CurationController* curation, MessageLog* log, StatusLine* status,
                                       QWidget* window)
    : QObject(window),
      window_(window),
      session_(session),
      context_(context),
      curation_(curation),
      log_(log),
      status_(status),
      export_(new ExportJob(log, this)) {
    connect(status_, &StatusLine::cancelRequested, session_->merge(), &MergeJob::cancel);
    connect(session_->merge(), &MergeJob::progress, status_, &StatusLine::setProgress);
    connect(session_->merge(), &MergeJob::finished, this, [this](const QString& summary, const QString& error) {
        status_->finishTask();
        if (!error.isEmpty()) {
            log_->error(tr("Merge"), tr("Merge failed: %1").arg(error));
            return;
        }
        log_->note(tr("Merge"), summary);
        adjudicationDialog()->show();
    });
}

void ProjectFileActions::chooseProject() {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open Project"), QString(),
                                                      tr("Linkscope projects (*.linkscope *.json)"));
    if (!path.isEmpty()) Q_EMIT openRequested(path);
}

void ProjectFileActions::chooseTeamProject() {
    TeamConnectionDialog dialog(window_);
    if (dialog.exec() != QDialog::Accepted) return;
    TeamConnectionDialog::rememberAddress(dialog.address());
    Q_EMIT openRequested(dialog.address());
}

void ProjectFileActions::chooseExport() {
    const LoadedProject* open = context_->project().get();
    if (!open || !session_->decisions()->isOpen()) return;
    QStringList splits;
    for (const auto& split : open->splits) splits << QString::fromStdString(split.split);
    ExportDialog dialog(splits, QFileInfo(QString::fromStdString(open->manifest.file.string())).absolutePath(),
                        window_);
    if (dialog.exec() == QDialog::Accepted) startExport(dialog.options());
}

void ProjectFileActions::chooseMerge() {
    if (!session_->decisions()->isOpen()) return;
    const QString path = QFileDialog::getOpenFileName(window_, tr("Merge Another Curator's Project"), QString(),
                                                      tr("Linkscope project files (*.linkscope)"));
    if (!path.isEmpty()) mergeProject(path);
}

void ProjectFileActions::showAdjudication() {
    adjudicationDialog()->show();
    adjudication_->raise();
}

bool ProjectFileActions::startExport(const curation::ExportOptions& options) {
    return context_->project() && session_->decisions()->isOpen() &&
           export_->start(*session_->decisions()->store(), options);
}

bool ProjectFileActions::mergeProject(const QString& projectFile) {
    if (!session_->merge()->start(projectFile)) return false;
    log_->progress(tr("Merge"), tr("Merging the decisions of %1…").arg(projectFile));
    status_->startTask();
    return true;
}

AdjudicationDialog* ProjectFileActions::adjudicationDialog() {
    if (!adjudication_) {
        adjudication_ = new AdjudicationDialog(session_, window_);
        connect(adjudication_, &AdjudicationDialog::mentionActivated, curation_, &CurationController::showMention);
    }
    return adjudication_;
}

}  // namespace linkscope::ui
