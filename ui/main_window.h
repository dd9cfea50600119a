#pragma once
// The Linkscope main window: documents dock, document view, knowledge-base summary and a
// diagnostics log, with dock layout kept across sessions (QSettings).
#include <QMainWindow>
#include <QThreadPool>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "curation/project_export.h"
#include "mention_adapter.h"
#include "project/curation_decision.h"
#include "turn_scheduler.h"

class QLabel;
class QMenu;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QComboBox;
class QTableView;

namespace linkscope {
struct LoadedProject;
class Document;
struct Mention;
}  // namespace linkscope

namespace linkscope::ui {

class AdjudicationDialog;
class CandidatesPanel;
class CurationSession;
class DocumentFilterModel;
class DocumentListModel;
class EmbeddingPlot;
class EntitySearchBox;
class EvaluationPanel;
class KnowledgeBaseDock;
class RawFileView;
class TrainingPanel;
class DocumentView;
class VocabularyDock;
class ProjectLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Starts loading a project in the background: a manifest (.json), whose decisions are kept
    /// in CurationSession::projectFileForManifest, or a project file (.linkscope).
    void openProject(const QString& path);
    const LoadedProject* project() const { return project_.get(); }
    DocumentListModel* documentModel() const { return documents_; }
    DocumentView* documentView() const { return view_; }
    CurationSession* session() const { return session_; }
    CandidatesPanel* candidatesPanel() const { return candidates_; }
    KnowledgeBaseDock* knowledgeBaseDock() const { return kbDock_; }
    /// The candidates panel's "correct to" search over the whole KB.
    EntitySearchBox* correctionSearch() const { return correctionSearch_; }
    RawFileView* rawFileView() const { return rawView_; }
    EvaluationPanel* evaluationPanel() const { return evaluation_; }
    EmbeddingPlot* embeddingPlot() const { return embeddingPlot_; }
    TrainingPanel* trainingPanel() const { return training_; }
    /// Shows a mention: selects its document and the mention in it; false when not found.
    bool showMention(const QString& split, const QString& pmid, int start, int end);
    /// Lists, in the Candidates dock, the mentions the last decision moved to another proposal
    /// (the status line's "list them"); returns how many.
    int showChangedByLastDecision();
    /// Edit > Next Mention Worth Reviewing (F8): selects the first mention of the review queue
    /// (ui/review_queue_order.h) in the document view and the Candidates dock. False when none.
    bool nextWorthReviewing();
    /// The shown document's split name and the document (nullptr when none is shown).
    const Document* currentDocument() const { return currentDocument_; }
    /// The selected mention's key, when a mention is selected.
    std::optional<project::MentionKey> currentMentionKey() const;
    /// Records a decision on the selected mention (as the curation keys do); false when there is
    /// no selected mention or the decision was refused.
    bool decideCurrent(project::DecisionKind kind, const QString& entityId = {});
    /// Exports the open project (its decisions in effect applied) on a worker; exportFinished or
    /// exportFailed follows. False when no project is open or an export is running.
    bool startExport(const curation::ExportOptions& options);
    /// Several curators (issue 18): starts recording another curator's project file's decisions
    /// into the open one on a worker (File > Merge Another Curator's Project), with progress and
    /// Cancel in the status bar; CurationSession::mergeFinished follows, and the adjudication
    /// dialog opens after a merge that went through. False when none can start.
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
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createActions();
    void createDocks();
    void showProject(std::shared_ptr<const LoadedProject> project);
    /// Starts the KB dock's search index once the candidate ranker is built (or failed).
    void startKbIndexing();
    /// Runs the steps one per turn of the event loop (no step of showing a project may hold the
    /// loop for long); a later showProject() drops the steps left of an earlier one.
    void runInTurns(std::vector<std::function<void()>> steps);
    void showDocumentAt(const QModelIndex& proxyIndex);
    void showLoadProgress(const QString& stage, int percent);
    void finishLoading();
    void restoreLayout();
    void chooseProject();
    void chooseExport();
    void chooseMerge();
    void createCurationActions(QMenu* edit);
    void showCandidates();
    void refreshMentionStates();
    void refreshReview();
    /// Only the documents of these mentions changed (a decision, a re-ranking).
    void refreshReview(const std::vector<project::MentionKey>& changed);
    void showReviewProgress();  ///< the reviewed/total line of every split
    /// The Documents dock's "Worth reviewing" priorities, computed again while that filter is on.
    void refreshReviewQueue();
    /// Fills the Candidates dock's reach preview for candidate `entity` ("" clears it).
    void previewReach(const QString& entity);
    std::map<std::pair<std::string, std::string>, double> reviewPriorities_;
    void offerSameSurface(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind);
    void applyOffer();
    const Mention* currentMention() const;
    MentionStatusFn statusFunction() const;

    std::shared_ptr<const LoadedProject> project_;
    TurnScheduler showTurns_{this};  ///< the steps of the last showProject() (runInTurns)
    ProjectLoader* loader_ = nullptr;
    /// The KB dock waits for the candidate ranker before it indexes the KB (startKbIndexing).
    bool kbIndexAfterRanker_ = false;
    DocumentListModel* documents_ = nullptr;
    DocumentFilterModel* documentFilter_ = nullptr;
    QComboBox* reviewFilter_ = nullptr;
    QLabel* reviewProgress_ = nullptr;
    QTableView* documentTable_ = nullptr;
    QLineEdit* documentSearch_ = nullptr;
    DocumentView* view_ = nullptr;
    QLabel* documentHeader_ = nullptr;
    VocabularyDock* kbSummary_ = nullptr;
    QPlainTextEdit* diagnostics_ = nullptr;
    CurationSession* session_ = nullptr;
    CandidatesPanel* candidates_ = nullptr;
    EntitySearchBox* correctionSearch_ = nullptr;
    KnowledgeBaseDock* kbDock_ = nullptr;
    RawFileView* rawView_ = nullptr;
    EvaluationPanel* evaluation_ = nullptr;
    EmbeddingPlot* embeddingPlot_ = nullptr;
    TrainingPanel* training_ = nullptr;
    std::string currentSplit_;
    const Document* currentDocument_ = nullptr;
    /// The last decision's "apply to all identical mentions" offer.
    struct SameSurfaceOffer {
        std::vector<std::pair<project::MentionKey, const Mention*>> mentions;
        project::DecisionKind kind = project::DecisionKind::Accept;
        std::string link;
    };
    SameSurfaceOffer offer_;
    bool exporting_ = false;
    AdjudicationDialog* adjudication_ = nullptr;  ///< made on first use
    /// The export's own pool (see CurationSession: a job on the global pool delays painting).
    QThreadPool exportPool_;
    QProgressBar* progressBar_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QLabel* statusLabel_ = nullptr;
};

}  // namespace linkscope::ui
