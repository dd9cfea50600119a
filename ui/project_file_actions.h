#pragma once
// The File menu's dialogs and the jobs they start: choosing a project to open, exporting the
// open project (ExportJob), merging another curator's project file into it (the session's
// MergeJob, with progress and Cancel in the status bar) and the adjudication dialog that a merge
// which went through opens. MainWindow builds the menu and hands its actions here; the results
// and failures go to the message log.
#include <QObject>
#include <QString>

#include "curation/project_export.h"

class QWidget;

namespace linkscope::ui {

class AdjudicationDialog;
class CurationController;
class CurationSession;
class ExportJob;
class MessageLog;
class ProjectContext;
class StatusLine;

class ProjectFileActions : public QObject {
    Q_OBJECT
public:
    /// `window` parents this object and the dialogs; the other parts must outlive it.
    ProjectFileActions(CurationSession* session, const ProjectContext* context, CurationController* curation,
                       MessageLog* log, StatusLine* status, QWidget* window);

    /// File > Open Project: asks for a manifest or a project file; openRequested follows.
    void chooseProject();
    /// File > Open Team Project: asks for a server's address (team_connection_dialog.h);
    /// openRequested follows.
    void chooseTeamProject();
    /// File > Export: asks what to export and where, then starts the export.
    void chooseExport();
    /// File > Merge Another Curator's Project: asks for the project file, then starts the merge.
    void chooseMerge();
    /// File > Adjudicate Disagreements: shows and raises the dialog.
    void showAdjudication();

    /// Exports the open project (its decisions in effect applied) on a worker; the export job's
    /// finished or failed follows. False when no project is open or an export is running.
    bool startExport(const curation::ExportOptions& options);
    /// Starts recording another curator's project file's decisions into the open one on a worker;
    /// MergeJob::finished follows, and the adjudication dialog opens after a merge that went
    /// through. False when none can start.
    bool mergeProject(const QString& projectFile);
    /// The adjudication dialog (made on first use, not shown by this call).
    AdjudicationDialog* adjudicationDialog();
    ExportJob* exportJob() const { return export_; }

Q_SIGNALS:
    void openRequested(const QString& path);

private:
    QWidget* window_;
    CurationSession* session_;
    const ProjectContext* context_;
    CurationController* curation_;
    MessageLog* log_;
    StatusLine* status_;
    ExportJob* export_;
    AdjudicationDialog* adjudication_ = nullptr;  ///< made on first use
};

}  // namespace linkscope::ui
