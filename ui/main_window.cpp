#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>

#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "curation_controller.h"
#include "curation_session.h"
#include "document_list_model.h"
#include "document_pane.h"
#include "document_view.h"
#include "documents_dock.h"
#include "embedding_plot.h"
#include "entity_search_box.h"
#include "evaluation_panel.h"
#include "export_job.h"
#include "knowledge_base_dock.h"
#include "linking_menu.h"
#include "message_log.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "project_context.h"
#include "project_file_actions.h"
#include "project_loader.h"
#include "raw_file_view.h"
#include "run_ranker.h"
#include "status_line.h"
#include "team_status_label.h"
#include "training_panel.h"
#include "vocabulary_dock.h"

namespace linkscope::ui {
namespace {

/// A dock around `content`. The content scrolls when the dock is smaller than the content's
/// minimum size, so that no dock (the charts of Training or Evaluation) makes the window taller
/// or wider than the screen.
QDockWidget* addDock(QMainWindow* window, const QString& title, const char* name, QWidget* content,
                     Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(QLatin1String(name));
    auto* scroll = new QScrollArea(dock);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setFocusPolicy(Qt::NoFocus);  // the focus stays where the keys were
    scroll->setWidget(content);
    dock->setWidget(scroll);
    window->addDockWidget(area, dock);
    return dock;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), context_(new ProjectContext(this)), loader_(new ProjectLoader(this)) {
    setWindowTitle(tr("Linkscope"));
    setObjectName(QStringLiteral("mainWindow"));
    resize(1200, 800);

    pane_ = new DocumentPane(this);
    view_ = pane_->view();
    setCentralWidget(pane_);

    session_ = new CurationSession(this);
    log_ = new MessageLog(this);
    createDocks();
    createStatusBar();
    files_ = new ProjectFileActions(session_, context_, curation_, log_, status_, this);
    connect(files_->exportJob(), &ExportJob::finished, this, &MainWindow::exportFinished);
    connect(files_->exportJob(), &ExportJob::failed, this, &MainWindow::exportFailed);
    connect(files_, &ProjectFileActions::openRequested, this, &MainWindow::openProject);
    createActions();
    connectSession();
    restoreLayout();
}

MainWindow::~MainWindow() = default;

void MainWindow::createStatusBar() {
    status_ = new StatusLine(log_, statusBar());
    auto* teamStatus = new TeamStatusLabel(session_->live(), session_->decisions(), statusBar());
    teamStatus->followMode(session_->claims());
    statusBar()->addPermanentWidget(teamStatus);
    connect(session_->live(), &TeamLiveUpdates::decisionOutcomeKnown, this,
            [this](const QString& message, bool stored) {
                if (stored)
                    log_->note(tr("Team"), message);
                else
                    log_->error(tr("Team"), message);
            });
    connect(status_, &StatusLine::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("changed")) curation_->showChangedByLastDecision();
    });
    connect(status_, &StatusLine::cancelRequested, loader_, &ProjectLoader::cancel);
    connect(loader_, &ProjectLoader::progress, this, &MainWindow::showLoadProgress);
    connect(loader_, &ProjectLoader::loaded, this, [this](ProjectPtr project) {
        status_->finishTask();
        showProject(std::move(project));
    });
    connect(loader_, &ProjectLoader::failed, this, [this](const QString& message) {
        status_->finishTask();
        log_->error(tr("Project"), tr("Could not open the project: %1").arg(message));
        Q_EMIT projectFailed(message);
        if (!QGuiApplication::platformName().startsWith(QLatin1String("offscreen")))
            QMessageBox::warning(this, tr("Could not open the project"), message);
    });
    connect(loader_, &ProjectLoader::cancelled, this, [this] {
        status_->finishTask();
        log_->note(tr("Project"), tr("Loading cancelled"));
    });
}

void MainWindow::connectSession() {
    connect(session_->rankers(), &RankerHost::rankerReady, this, [this] {
        embeddingPlot_->setCandidates(session_->rankers()->sparseRanker());
        // The KB search a turn later: it is built on a worker anyway (and the ranker may have
        // failed: it must not wait for it).
        QTimer::singleShot(0, this, [this] { startKbIndexing(); });
    });
    connect(session_->rankers(), &RankerHost::runLinked, this, [this] {
        // The plot's distances in the run's own space from now on.
        const RunRanker* run = session_->rankers()->runRanker();
        curation::NeighbourhoodOptions options;
        options.embed = run->textEmbedding();
        embeddingPlot_->setOptions(options, tr("cosine of %1's vectors").arg(QString::fromStdString(run->runName())));
    });
    connect(session_->rankers(), &RankerHost::sparseLinked, this, [this] { embeddingPlot_->setOptions({}); });
    // The ranker may have failed: the KB search must not wait for it.
    connect(session_, &CurationSession::errorOccurred, this, [this] { startKbIndexing(); });
}

void MainWindow::createDocks() {
    documents_ = new DocumentsDock(session_, this);
    addDockWidget(Qt::LeftDockWidgetArea, documents_);
    connect(documents_, &DocumentsDock::documentSelected, this, &MainWindow::showDocument);

    candidates_ = new CandidatesPanel;
    QDockWidget* candidatesDock =
        addDock(this, tr("Candidates"), "candidatesDock", candidates_, Qt::RightDockWidgetArea);
    correctionSearch_ = new EntitySearchBox(candidates_);
    correctionSearch_->setObjectName(QStringLiteral("correctionSearch"));
    candidates_->setSearchWidget(correctionSearch_);
    curation_ = new CurationController(session_, documents_, view_, candidates_, correctionSearch_, log_, this);

    kbDock_ = new KnowledgeBaseDock;
    QDockWidget* kbDock = addDock(this, tr("Knowledge base"), "knowledgeBaseDock", kbDock_, Qt::RightDockWidgetArea);
    connect(kbDock_, &KnowledgeBaseDock::searchIndexReady, this,
            [this] { correctionSearch_->setIndex(kbDock_->searchIndex()); });
    connect(kbDock_, &KnowledgeBaseDock::indexingFailed, this,
            [this](const QString& message) { log_->error(tr("Knowledge base"), message); });
    connect(kbDock_, &KnowledgeBaseDock::mentionActivated, curation_, &CurationController::showMention);
    // Selecting a candidate shows its entity page.
    connect(candidates_->table()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const QString id = current.data(CandidateModel::EntityIdRole).toString();
                if (!id.isEmpty()) kbDock_->showEntity(id);
            });

    embeddingPlot_ = new EmbeddingPlot;
    QDockWidget* plotDock =
        addDock(this, tr("Embedding plot"), "embeddingDock", embeddingPlot_, Qt::BottomDockWidgetArea);
    connect(embeddingPlot_, &EmbeddingPlot::mentionActivated, curation_, &CurationController::showMention);
    connect(embeddingPlot_, &EmbeddingPlot::entityActivated, kbDock_, &KnowledgeBaseDock::showEntity);
    connect(embeddingPlot_, &EmbeddingPlot::failed, this,
            [this](const QString& message) { log_->error(tr("Embedding plot"), message); });
    // The plot follows the entity page while it is visible (each plot is a worker job).
    connect(kbDock_, &KnowledgeBaseDock::entityShown, this, [this, plotDock](const QString& id) {
        if (plotDock->isVisible() && !plotDock->visibleRegion().isEmpty()) embeddingPlot_->showEntity(id);
    });

    training_ = new TrainingPanel;
    QDockWidget* trainingDock = addDock(this, tr("Training"), "trainingDock", training_, Qt::RightDockWidgetArea);
    connect(training_, &TrainingPanel::runFinished, this, [this](const QString& directory) {
        log_->note(tr("Training"), tr("Training finished: %1 (registered in the project)").arg(directory));
    });
    connect(training_, &TrainingPanel::trainingFailed, this,
            [this](const QString& message) { log_->error(tr("Training"), tr("Training failed: %1").arg(message)); });

    auto* vocabulary = new VocabularyDock;
    QDockWidget* vocabularyDock =
        addDock(this, tr("Vocabulary"), "vocabularyDock", vocabulary, Qt::RightDockWidgetArea);

    rawView_ = new RawFileView;
    QDockWidget* rawDock = addDock(this, tr("Raw file"), "rawFileDock", rawView_, Qt::BottomDockWidgetArea);
    connect(rawView_, &RawFileView::loadFailed, this,
            [this](const QString&, const QString& message) { log_->error(tr("Raw file"), message); });

    // The message log keeps the dock name of the diagnostics it replaced, so saved layouts hold.
    QDockWidget* logDock = addDock(this, tr("Messages"), "diagnosticsDock", log_, Qt::BottomDockWidgetArea);

    evaluation_ = new EvaluationPanel;
    evaluation_->setRunsProvider([this] {
        QStringList runs;
        if (session_->decisions()->isOpen())
            for (const auto& run : session_->decisions()->store()->runs())
                runs << QString::fromStdString(run.directory.string());
        return runs;
    });
    QDockWidget* evaluationDock =
        addDock(this, tr("Evaluation"), "evaluationDock", evaluation_, Qt::BottomDockWidgetArea);
    connect(evaluation_, &EvaluationPanel::mentionActivated, curation_, &CurationController::showMention);
    connect(evaluation_, &EvaluationPanel::runFailed, this,
            [this](const QString& message) { log_->error(tr("Evaluation"), message); });

    tabifyDockWidget(candidatesDock, kbDock);
    tabifyDockWidget(logDock, evaluationDock);
    tabifyDockWidget(evaluationDock, plotDock);
    tabifyDockWidget(kbDock, vocabularyDock);
    tabifyDockWidget(vocabularyDock, trainingDock);
    tabifyDockWidget(logDock, rawDock);
    candidatesDock->raise();
    logDock->raise();

    // The docks take each project from the context, one a turn, in this order.
    context_->follow(documents_);
    context_->follow(documents_, [this](const ProjectContext::Project&) { documents_->refreshReview(); });
    context_->follow(vocabulary);
    context_->follow(kbDock_, [this](const ProjectContext::Project& project) {
        // The KB's search index after the candidate ranker, not beside it: at UMLS size both
        // hold their build's memory at once, and the curator needs the candidates first.
        const bool afterRanker = session_->decisions()->isOpen() && !session_->rankers()->sparseRankerBuilt();
        kbDock_->setProject(project, !afterRanker);
        kbIndexAfterRanker_ = afterRanker;
    });
    context_->follow(evaluation_);
    context_->follow(embeddingPlot_);
    context_->follow(training_);
    context_->follow(this, [this](const ProjectContext::Project& project) { showProjectSummary(*project); });
    connect(context_, &ProjectContext::projectChanged, curation_, &CurationController::setProject);
    connect(context_, &ProjectContext::projectShown, this, [this] {
        documents_->selectFirst();
        Q_EMIT projectLoaded();
    });
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Project…"), files_, &ProjectFileActions::chooseProject);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Team Project…"), files_, &ProjectFileActions::chooseTeamProject);
    QAction* exportAction = file->addAction(tr("&Export…"), files_, &ProjectFileActions::chooseExport);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    // Several curators: merge another curator's file, then adjudicate.
    file->addAction(tr("&Merge Another Curator's Project…"), files_, &ProjectFileActions::chooseMerge);
    file->addAction(tr("&Adjudicate Disagreements…"), files_, &ProjectFileActions::showAdjudication);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    curation_->createActions(menuBar()->addMenu(tr("&Edit")), this);
    menuBar()->addMenu(new LinkingMenu(session_, this));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Linkscope"), this, [this] {
        QMessageBox::about(
            this, tr("About Linkscope"),
            tr("<b>Linkscope %1</b><p>Biomedical entity linking: curation, training and error analysis.</p>")
                .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::restoreLayout() {
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray())) fitToScreen();
    fitDocksOnShow_ = !restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
}

void MainWindow::fitToScreen() {
    const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen) return;
    const QRect available = screen->availableGeometry();
    // Room to spare around the frame; at most a size a curator reads comfortably.
    const QSize size(std::min(available.width() * 9 / 10, 1600), std::min(available.height() * 9 / 10, 1000));
    resize(size);
    move(available.center() - QPoint(size.width() / 2, size.height() / 2));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!fitDocksOnShow_) return;
    fitDocksOnShow_ = false;
    // The documents and the candidates readable beside the text, the message log a few lines.
    auto* candidatesDock = findChild<QDockWidget*>(QStringLiteral("candidatesDock"));
    auto* logDock = findChild<QDockWidget*>(QStringLiteral("diagnosticsDock"));
    resizeDocks({documents_, candidatesDock}, {width() * 27 / 100, width() * 38 / 100}, Qt::Horizontal);
    resizeDocks({logDock}, {std::max(fontMetrics().height() * 5, height() / 6)}, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    loader_->cancel();
    event->accept();
}

bool MainWindow::startExport(const curation::ExportOptions& options) { return files_->startExport(options); }
bool MainWindow::mergeProject(const QString& projectFile) { return files_->mergeProject(projectFile); }
AdjudicationDialog* MainWindow::adjudicationDialog() { return files_->adjudicationDialog(); }

void MainWindow::openProject(const QString& manifestPath) {
    training_->setStore(nullptr);  // the store closes with the session
    session_->close();
    curation_->clear();
    log_->clear();
    log_->progress(tr("Project"), tr("Opening %1…").arg(manifestPath));
    status_->startTask();
    loader_->load(manifestPath);
}

void MainWindow::showLoadProgress(const QString& stage, int percent) {
    log_->progress(tr("Project"), stage);
    status_->setProgress(percent);
}

void MainWindow::startKbIndexing() {
    if (!kbIndexAfterRanker_) return;
    kbIndexAfterRanker_ = false;
    kbDock_->startIndexing();
}

void MainWindow::showProject(std::shared_ptr<const LoadedProject> project) {
    kbIndexAfterRanker_ = false;
    const QString opened = loader_->path();
    const QString projectFile = DecisionLog::storeAddressFor(opened);
    if (const QString error = session_->open(project, projectFile, loader_->takeOpenedTeamStore()); !error.isEmpty())
        log_->error(tr("Project"), tr("Decisions cannot be saved: %1").arg(error));
    // What points into the previous project or its store goes now, not a turn later.
    training_->setStore(session_->decisions()->isOpen() ? session_->decisions()->store() : nullptr);
    embeddingPlot_->setOptions({});  // a run's encoder belongs to the previous project's linking
    setWindowTitle(tr("%1 — Linkscope").arg(QString::fromStdString(project->manifest.name)));
    pane_->setDocument(nullptr);
    correctionSearch_->setIndex(nullptr);
    // The docks take the project from the context, each in a turn of the event loop (createDocks).
    context_->setProject(std::move(project));
}

void MainWindow::showProjectSummary(const LoadedProject& project) {
    for (const auto& diagnostic : project.diagnostics)
        log_->note(tr("Project"), QString::fromStdString(diagnostic.toString()));
    if (session_->decisions()->isOpen())
        log_->note(tr("Project"), tr("Decisions are saved in %1 (%2 so far)")
                                      .arg(session_->decisions()->projectFile())
                                      .arg(session_->decisions()->store()->decisionCount()));
    std::size_t mentions = 0;
    for (const auto& split : project.splits)
        for (const auto& document : split.corpus.documents()) mentions += document.mentions.size();
    log_->note(tr("Project"), tr("%1 documents, %2 mentions; %3 diagnostics")
                                  .arg(documents_->model()->rowCount())
                                  .arg(mentions)
                                  .arg(project.diagnostics.size()));
}

void MainWindow::showDocument(const Document* document, const std::string& split) {
    curation_->showDocument(document, split);
    pane_->setDocument(curation_->currentDocument());
    if (!curation_->currentDocument()) return;
    // The raw file follows the document (read once per file, on a worker).
    if (!document->sourceFile.empty()) {
        const QString file = QString::fromStdString(document->sourceFile);
        if (rawView_->filePath() != file) rawView_->loadFile(file);
        rawView_->goToLine(static_cast<int>(document->sourceLine));
    }
}

const LoadedProject* MainWindow::project() const { return context_->project().get(); }
DocumentListModel* MainWindow::documentModel() const { return documents_->model(); }
const Document* MainWindow::currentDocument() const { return curation_->currentDocument(); }
std::optional<project::MentionKey> MainWindow::currentMentionKey() const { return curation_->currentMentionKey(); }

bool MainWindow::showMention(const QString& split, const QString& pmid, int start, int end) {
    return curation_->showMention(split, pmid, start, end);
}

bool MainWindow::decideCurrent(project::DecisionKind kind, const QString& entityId) {
    return curation_->decideCurrent(kind, entityId);
}

}  // namespace linkscope::ui
