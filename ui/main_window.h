#pragma once
// The Linkscope main window: the document view in the middle, the docks around it (Documents,
// Candidates, Knowledge base, Vocabulary, Training, Evaluation, Embedding plot, Raw file and the
// message log), the menus and the status bar, with the dock layout kept across sessions
// (QSettings). It places and wires the parts; the parts do the work: the docks follow the open
// project (ProjectContext), the curation flow is CurationController's, the File menu's dialogs,
// export and merge are ProjectFileActions', every message goes to the MessageLog, and loading,
// merging and exporting run on workers.
#include <QMainWindow>

#include <memory>
#include <optional>

#include "curation/project_export.h"
#include "project/curation_decision.h"

namespace linkscope {
struct LoadedProject;
class Document;
}  // namespace linkscope

namespace linkscope::ui {

class AdjudicationDialog;
class CandidatesPanel;
class CurationController;
class CurationSession;
class DocumentListModel;
class DocumentPane;
class DocumentView;
class DocumentsDock;
class EmbeddingPlot;
class EntitySearchBox;
class EvaluationPanel;
class KnowledgeBaseDock;
class MessageLog;
class ProjectContext;
class ProjectFileActions;
class ProjectLoader;
class RawFileView;
class StatusLine;
class TrainingPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Starts loading a project in the background: a manifest (.json), whose decisions are kept
    /// in DecisionLog::projectFileForManifest, or a project file (.linkscope).
    void openProject(const QString& path);
    const LoadedProject* project() const;
    DocumentListModel* documentModel() const;
    DocumentView* documentView() const { return view_; }
    CurationSession* session() const { return session_; }
    CurationController* curation() const { return curation_; }
    CandidatesPanel* candidatesPanel() const { return candidates_; }
    KnowledgeBaseDock* knowledgeBaseDock() const { return kbDock_; }
    /// The candidates panel's "correct to" search over the whole KB.
    EntitySearchBox* correctionSearch() const { return correctionSearch_; }
    EvaluationPanel* evaluationPanel() const { return evaluation_; }
    EmbeddingPlot* embeddingPlot() const { return embeddingPlot_; }
    MessageLog* messageLog() const { return log_; }
    /// Shows a mention: selects its document and the mention in it; false when not found.
    bool showMention(const QString& split, const QString& pmid, int start, int end);
    /// The shown document (nullptr when none is shown).
    const Document* currentDocument() const;
    /// The selected mention's key, when a mention is selected.
    std::optional<project::MentionKey> currentMentionKey() const;
    /// Records a decision on the selected mention (as the curation keys do); false when there is
    /// no selected mention or the decision was refused.
    bool decideCurrent(project::DecisionKind kind, const QString& entityId = {});
    /// Exports the open project (its decisions in effect applied) on a worker; exportFinished or
    /// exportFailed follows. False when no project is open or an export is running.
    bool startExport(const curation::ExportOptions& options);
    /// Several curators: starts recording another curator's project file's decisions into the
    /// open one on a worker (File > Merge Another Curator's Project), with progress and Cancel in
    /// the status bar; MergeJob::finished follows, and the adjudication dialog opens
    /// after a merge that went through. False when none can start.
    bool mergeProject(const QString& projectFile);
    /// File > Adjudicate Disagreements' dialog (made on first use, not shown by this call).
    AdjudicationDialog* adjudicationDialog();

Q_SIGNALS:
    void projectLoaded();
    void projectFailed(const QString& message);
    void exportFinished(const QStringList& lines);
    void exportFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void createStatusBar();
    void createDocks();
    void createActions();
    void connectSession();
    void showProject(std::shared_ptr<const LoadedProject> project);
    /// The message log's lines on a project shown: its diagnostics, where decisions are saved,
    /// its size.
    void showProjectSummary(const LoadedProject& project);
    /// Starts the KB dock's search index once the candidate ranker is built (or failed).
    void startKbIndexing();
    void showDocument(const Document* document, const std::string& split);
    void showLoadProgress(const QString& stage, int percent);
    void restoreLayout();
    /// First start (no saved geometry): a window that fits the screen it opens on.
    void fitToScreen();

    ProjectContext* context_ = nullptr;
    ProjectLoader* loader_ = nullptr;
    /// The KB dock waits for the candidate ranker before it indexes the KB (startKbIndexing).
    bool kbIndexAfterRanker_ = false;
    /// No saved dock layout: when first shown, room for the documents and the candidates beside
    /// the text and a small message log.
    bool fitDocksOnShow_ = false;
    CurationSession* session_ = nullptr;
    MessageLog* log_ = nullptr;
    DocumentsDock* documents_ = nullptr;
    DocumentView* view_ = nullptr;
    DocumentPane* pane_ = nullptr;
    CandidatesPanel* candidates_ = nullptr;
    EntitySearchBox* correctionSearch_ = nullptr;
    KnowledgeBaseDock* kbDock_ = nullptr;
    RawFileView* rawView_ = nullptr;
    EvaluationPanel* evaluation_ = nullptr;
    EmbeddingPlot* embeddingPlot_ = nullptr;
    TrainingPanel* training_ = nullptr;
    CurationController* curation_ = nullptr;
    ProjectFileActions* files_ = nullptr;  ///< the File menu's dialogs, export and merge
    StatusLine* status_ = nullptr;
};

}  // namespace linkscope::ui
