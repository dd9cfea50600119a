#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <set>

#include "adjudication_dialog.h"
#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "curation_session.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include "curation/model_candidates.h"
#endif
#include "document_filter_model.h"
#include "document_list_model.h"
#include "document_view.h"
#include "embedding_plot.h"
#include "entity_search_box.h"
#include "evaluation_panel.h"
#include "export_dialog.h"
#include "knowledge_base_dock.h"
#include "linking_menu.h"
#include "mention_adapter.h"
#include "mention_palette.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "project_loader.h"
#include "raw_file_view.h"
#include "reach_preview.h"
#include "review_queue_order.h"
#include "training_panel.h"
#include "vocabulary_dock.h"

namespace linkscope::ui {
namespace {

QWidget* makeLegend(QWidget* parent) {
    auto* legend = new QWidget(parent);
    auto* layout = new QHBoxLayout(legend);
    layout->setContentsMargins(4, 2, 4, 2);
    for (const MentionState state : {MentionState::Unreviewed, MentionState::Predicted, MentionState::Accepted,
                                     MentionState::Corrected, MentionState::Rejected}) {
        auto* label = new QLabel(mentionStateName(state), legend);
        label->setStyleSheet(
            QStringLiteral("QLabel { background: %1; color: black; padding: 1px 6px; border-radius: 3px; }")
                .arg(mentionColor(state).name()));
        layout->addWidget(label);
    }
    auto* composite = new QLabel(QObject::tr("<u>composite</u>"), legend);
    layout->addWidget(composite);
    auto* abbreviation = new QLabel(QObject::tr("abbreviation (dotted)"), legend);
    abbreviation->setToolTip(
        QObject::tr("A short form the document defines; the tooltip shows the expansion the linkers read"));
    layout->addWidget(abbreviation);
    layout->addStretch();
    return legend;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), loader_(new ProjectLoader(this)) {
    setWindowTitle(tr("Linkscope"));
    setObjectName(QStringLiteral("mainWindow"));
    resize(1200, 800);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    documentHeader_ = new QLabel(tr("No document selected"), central);
    documentHeader_->setContentsMargins(6, 4, 6, 0);
    view_ = new DocumentView(central);
    layout->addWidget(documentHeader_);
    layout->addWidget(view_, 1);
    layout->addWidget(makeLegend(central));
    setCentralWidget(central);

    session_ = new CurationSession(this);
    createDocks();
    createActions();

    progressBar_ = new QProgressBar(this);
    progressBar_->setMaximumWidth(240);
    progressBar_->setVisible(false);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setVisible(false);
    statusLabel_ = new QLabel(this);
    // Plain text unless a message carries a link ("list them" after a decision moved proposals).
    statusLabel_->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    connect(statusLabel_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("changed")) showChangedByLastDecision();
    });
    statusBar()->addWidget(statusLabel_, 1);
    statusBar()->addPermanentWidget(progressBar_);
    statusBar()->addPermanentWidget(cancelButton_);
    connect(cancelButton_, &QPushButton::clicked, loader_, &ProjectLoader::cancel);

    connect(loader_, &ProjectLoader::progress, this, &MainWindow::showLoadProgress);
    connect(loader_, &ProjectLoader::loaded, this, [this](ProjectPtr project) {
        finishLoading();
        showProject(std::move(project));
    });
    connect(loader_, &ProjectLoader::failed, this, [this](const QString& message) {
        finishLoading();
        statusLabel_->setText(tr("Could not open the project"));
        diagnostics_->appendPlainText(message);
        Q_EMIT projectFailed(message);
        if (!QGuiApplication::platformName().startsWith(QLatin1String("offscreen")))
            QMessageBox::warning(this, tr("Could not open the project"), message);
    });
    connect(loader_, &ProjectLoader::cancelled, this, [this] {
        finishLoading();
        statusLabel_->setText(tr("Loading cancelled"));
    });
    connect(view_, &DocumentView::currentMentionChanged, this, [this] { showCandidates(); });
    connect(session_, &CurationSession::candidatesReady, this, [this] {
        statusLabel_->setText(tr("Candidates ready"));
        showCandidates();  // the selected mention's first (issue 17)
        // The rest each in a later turn of the event loop: done in this one, with the repaints
        // they cause, the arrival of the ranker held the GUI thread for 121 ms at UMLS size
        // (ui_stall run 14, docs/benchmarks.md). The KB search may start a turn later: it is
        // built on a worker anyway (and the ranker may have failed: it must not wait for it).
        QTimer::singleShot(0, this, [this] { refreshMentionStates(); });
        QTimer::singleShot(0, this, [this] { startKbIndexing(); });
    });
    connect(session_, &CurationSession::candidatesProgress, this, [this](const QString& stage, int percent) {
        statusLabel_->setText(tr("%1: %2 %").arg(stage).arg(percent));
    });
    connect(session_, &CurationSession::runLinked, this, [this] {
#ifdef LINKSCOPE_HAVE_TORCH
        // The plot's distances in the run's own space from now on.
        curation::NeighbourhoodOptions options;
        options.embed = curation::ModelCandidates::textEmbedding(session_->sharedRunLinking());
        embeddingPlot_->setOptions(
            options, tr("cosine of %1's vectors").arg(QString::fromStdString(session_->runLinking()->runName())));
#endif
        statusLabel_->setText(tr("Linked with %1").arg(session_->rankerDescription()));
        diagnostics_->appendPlainText(tr("Linked with %1").arg(session_->rankerDescription()));
    });
    connect(session_, &CurationSession::runLinkingCancelled, this, [this] {
        statusLabel_->setText(tr("Linking with the run stopped; %1 ranks").arg(session_->rankerDescription()));
    });
    connect(session_, &CurationSession::sparseLinked, this, [this] {
        embeddingPlot_->setOptions({});
        statusLabel_->setText(tr("Linked with %1").arg(session_->rankerDescription()));
    });
    // A decision fed the datastore: the mentions it reached were ranked again.
    connect(session_, &CurationSession::rankingsChanged, this,
            [this](const std::vector<project::MentionKey>& reranked, int topChanged) {
                refreshReview(reranked);
                const auto selected = currentMentionKey();
                bool here = false, selectedReranked = false;
                for (const project::MentionKey& key : reranked) {
                    here = here ||
                           (currentDocument_ && key.split == currentSplit_ && key.document == currentDocument_->pmid());
                    selectedReranked = selectedReranked || (selected && key == *selected);
                }
                if (here) refreshMentionStates();
                if (selectedReranked) showCandidates();
                // The running total of the decision's reach; the link lists those mentions
                // (showChangedByLastDecision) while the status line still says it.
                const int moved = static_cast<int>(session_->changedByLastDecision().size());
                (void)topChanged;
                statusLabel_->setText(
                    tr("The datastore changed: %n mention(s) ranked again, %1 now proposing another entity", nullptr,
                       static_cast<int>(reranked.size()))
                        .arg(moved) +
                    (moved > 0 ? QStringLiteral(" (<a href=\"changed\">%1</a>)").arg(tr("list them")) : QString()));
            });
    connect(session_, &CurationSession::proposalsReady, this, [this] { refreshReview(); });
    // Proposals arrive a batch of documents at a time (issue 17): only those documents' figures
    // are computed again, not every document's at the end.
    connect(session_, &CurationSession::proposalsRanked, this,
            [this](const std::vector<project::MentionKey>& mentions) { refreshReview(mentions); });
    connect(session_, &CurationSession::proposalsComplete, this, [this] {
        showReviewProgress();
        refreshReviewQueue();
    });
    connect(session_, &CurationSession::decisionChanged, this, [this](const project::MentionKey& key) {
        refreshReview(std::vector<project::MentionKey>{key});
        if (currentDocument_ && key.split == currentSplit_ && key.document == currentDocument_->pmid()) {
            refreshMentionStates();
            showCandidates();
        }
    });
    // Several curators: a merge's progress, Cancel and outcome in the status bar.
    connect(cancelButton_, &QPushButton::clicked, session_, &CurationSession::cancelMerge);
    connect(session_, &CurationSession::mergeProgress, progressBar_, &QProgressBar::setValue);
    connect(session_, &CurationSession::mergeFinished, this, [this](const QString& summary, const QString& error) {
        finishLoading();
        const QString message = error.isEmpty() ? summary : tr("Merge failed: %1").arg(error);
        diagnostics_->appendPlainText(message);
        statusLabel_->setText(message);
        if (error.isEmpty()) adjudicationDialog()->show();
    });
    // A merge changed many decisions at once.
    connect(session_, &CurationSession::decisionsReloaded, this, [this] {
        refreshReview();
        if (currentDocument_) {
            refreshMentionStates();
            showCandidates();
        }
    });
    connect(session_, &CurationSession::errorOccurred, this, [this](const QString& message) {
        startKbIndexing();  // the ranker may have failed: the KB search must not wait for it
        diagnostics_->appendPlainText(message);
        statusLabel_->setText(message);
    });
    restoreLayout();
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
    auto* documentsDock = new QDockWidget(tr("Documents"), this);
    documentsDock->setObjectName(QStringLiteral("documentsDock"));
    auto* panel = new QWidget(documentsDock);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(2, 2, 2, 2);
    documentSearch_ = new QLineEdit(panel);
    documentSearch_->setObjectName(QStringLiteral("documentFilter"));
    documentSearch_->installEventFilter(this);  // Enter belongs to the filter, not to "accept"
    documentSearch_->setPlaceholderText(tr("Filter by PMID or title"));
    documentSearch_->setClearButtonEnabled(true);
    documents_ = new DocumentListModel(this);
    documentFilter_ = new DocumentFilterModel(this);
    documentFilter_->setSourceModel(documents_);
    documentFilter_->setSortRole(Qt::DisplayRole);
    reviewFilter_ = new QComboBox(panel);
    reviewFilter_->setObjectName(QStringLiteral("reviewFilter"));
    reviewFilter_->addItem(tr("All documents"), static_cast<int>(DocumentFilterModel::Review::All));
    reviewFilter_->addItem(tr("Unreviewed mentions"), static_cast<int>(DocumentFilterModel::Review::Unreviewed));
    reviewFilter_->addItem(tr("Disagreements with gold"), static_cast<int>(DocumentFilterModel::Review::Disagreements));
    reviewFilter_->addItem(tr("Low confidence"), static_cast<int>(DocumentFilterModel::Review::LowConfidence));
    reviewFilter_->addItem(tr("Worth reviewing (queue order)"),
                           static_cast<int>(DocumentFilterModel::Review::WorthReviewing));
    reviewFilter_->setToolTip(
        tr("Show the documents with unreviewed mentions, with a link in effect that differs from "
           "the gold, or with an unreviewed mention the ranker is unsure of"));
    reviewProgress_ = new QLabel(panel);
    reviewProgress_->setObjectName(QStringLiteral("reviewProgress"));
    reviewProgress_->setWordWrap(true);
    documentTable_ = new QTableView(panel);
    documentTable_->setObjectName(QStringLiteral("documentTable"));
    documentTable_->setModel(documentFilter_);
    documentTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    documentTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    documentTable_->setSortingEnabled(true);
    documentTable_->sortByColumn(-1, Qt::AscendingOrder);
    documentTable_->verticalHeader()->hide();
    documentTable_->setWordWrap(false);
    documentTable_->setTextElideMode(Qt::ElideRight);
    QHeaderView* header = documentTable_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Sized from the first rows only: measuring all of NCBI's 2,541 documents (review figures
    // included) after every decision stalls the GUI thread.
    header->setResizeContentsPrecision(64);
    header->setSectionResizeMode(DocumentListModel::TitleColumn, QHeaderView::Stretch);
    documentTable_->verticalHeader()->setDefaultSectionSize(documentTable_->fontMetrics().height() + 6);
    auto* filters = new QHBoxLayout;
    filters->addWidget(documentSearch_, 1);
    filters->addWidget(reviewFilter_);
    layout->addLayout(filters);
    layout->addWidget(documentTable_, 1);
    layout->addWidget(reviewProgress_);
    documentsDock->setWidget(panel);
    addDockWidget(Qt::LeftDockWidgetArea, documentsDock);
    connect(documentSearch_, &QLineEdit::textChanged, documentFilter_, &QSortFilterProxyModel::setFilterFixedString);
    connect(reviewFilter_, &QComboBox::currentIndexChanged, this, [this] {
        documentFilter_->setReviewFilter(
            static_cast<DocumentFilterModel::Review>(reviewFilter_->currentData().toInt()));
        refreshReviewQueue();
    });
    connect(documentTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showDocumentAt(current); });

    auto* candidatesDock = new QDockWidget(tr("Candidates"), this);
    candidatesDock->setObjectName(QStringLiteral("candidatesDock"));
    candidates_ = new CandidatesPanel(candidatesDock);
    candidatesDock->setWidget(candidates_);
    addDockWidget(Qt::RightDockWidgetArea, candidatesDock);
    connect(candidates_, &CandidatesPanel::acceptRequested, this,
            [this] { decideCurrent(project::DecisionKind::Accept); });
    connect(candidates_, &CandidatesPanel::correctRequested, this,
            [this](const QString& id) { decideCurrent(project::DecisionKind::Correct, id); });
    connect(candidates_, &CandidatesPanel::rejectRequested, this,
            [this] { decideCurrent(project::DecisionKind::Reject); });
    connect(candidates_, &CandidatesPanel::nilRequested, this, [this] { decideCurrent(project::DecisionKind::Nil); });
    connect(candidates_, &CandidatesPanel::skipRequested, this, [this] { decideCurrent(project::DecisionKind::Skip); });
    connect(candidates_, &CandidatesPanel::applyToAllRequested, this, &MainWindow::applyOffer);

    correctionSearch_ = new EntitySearchBox(candidates_);
    correctionSearch_->setObjectName(QStringLiteral("correctionSearch"));
    candidates_->setSearchWidget(correctionSearch_);
    connect(correctionSearch_, &EntitySearchBox::entityChosen, this, [this](const QString& id) {
        const Mention* mention = currentMention();
        const auto key = currentMentionKey();
        if (!mention || !key) return;
        const bool same = session_->linkInEffect(*key, *mention) == id.toStdString();
        if (decideCurrent(same ? project::DecisionKind::Accept : project::DecisionKind::Correct, id))
            view_->setFocus();  // back to the document: the next mention is one key away
    });
    // Selecting a candidate shows its entity page.
    connect(candidates_->table()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const QString id = current.data(CandidateModel::EntityIdRole).toString();
                if (!id.isEmpty()) kbDock_->showEntity(id);
                previewReach(id);
            });
    connect(candidates_->reachPreview(), &ReachPreview::mentionActivated, this, &MainWindow::showMention);

    auto* kbDock = new QDockWidget(tr("Knowledge base"), this);
    kbDock->setObjectName(QStringLiteral("knowledgeBaseDock"));
    kbDock_ = new KnowledgeBaseDock(kbDock);
    kbDock->setWidget(kbDock_);
    addDockWidget(Qt::RightDockWidgetArea, kbDock);
    connect(kbDock_, &KnowledgeBaseDock::searchIndexReady, this,
            [this] { correctionSearch_->setIndex(kbDock_->searchIndex()); });
    connect(kbDock_, &KnowledgeBaseDock::indexingFailed, this,
            [this](const QString& message) { diagnostics_->appendPlainText(message); });
    connect(kbDock_, &KnowledgeBaseDock::mentionActivated, this, &MainWindow::showMention);

    auto* plotDock = new QDockWidget(tr("Embedding plot"), this);
    plotDock->setObjectName(QStringLiteral("embeddingDock"));
    embeddingPlot_ = new EmbeddingPlot(plotDock);
    plotDock->setWidget(embeddingPlot_);
    addDockWidget(Qt::BottomDockWidgetArea, plotDock);
    connect(embeddingPlot_, &EmbeddingPlot::mentionActivated, this, &MainWindow::showMention);
    connect(embeddingPlot_, &EmbeddingPlot::entityActivated, kbDock_, &KnowledgeBaseDock::showEntity);
    connect(embeddingPlot_, &EmbeddingPlot::failed, this,
            [this](const QString& message) { diagnostics_->appendPlainText(message); });
    // The plot follows the entity page while it is visible (each plot is a worker job).
    connect(kbDock_, &KnowledgeBaseDock::entityShown, this, [this, plotDock](const QString& id) {
        if (plotDock->isVisible() && !plotDock->visibleRegion().isEmpty()) embeddingPlot_->showEntity(id);
    });
    connect(session_, &CurationSession::candidatesReady, this,
            [this] { embeddingPlot_->setCandidates(session_->sparseCandidates()); });

    auto* trainingDock = new QDockWidget(tr("Training"), this);
    trainingDock->setObjectName(QStringLiteral("trainingDock"));
    training_ = new TrainingPanel(trainingDock);
    trainingDock->setWidget(training_);
    addDockWidget(Qt::RightDockWidgetArea, trainingDock);
    connect(training_, &TrainingPanel::runFinished, this, [this](const QString& directory) {
        statusLabel_->setText(tr("Training finished: %1 (registered in the project)").arg(directory));
        diagnostics_->appendPlainText(tr("Training finished: %1").arg(directory));
    });
    connect(training_, &TrainingPanel::trainingFailed, this,
            [this](const QString& message) { diagnostics_->appendPlainText(tr("Training failed: %1").arg(message)); });

    auto* summaryDock = new QDockWidget(tr("Vocabulary"), this);
    summaryDock->setObjectName(QStringLiteral("vocabularyDock"));
    kbSummary_ = new VocabularyDock(summaryDock);
    summaryDock->setWidget(kbSummary_);
    addDockWidget(Qt::RightDockWidgetArea, summaryDock);

    auto* rawDock = new QDockWidget(tr("Raw file"), this);
    rawDock->setObjectName(QStringLiteral("rawFileDock"));
    rawView_ = new RawFileView(rawDock);
    rawDock->setWidget(rawView_);
    addDockWidget(Qt::BottomDockWidgetArea, rawDock);
    connect(rawView_, &RawFileView::loadFailed, this,
            [this](const QString&, const QString& message) { diagnostics_->appendPlainText(message); });

    auto* diagnosticsDock = new QDockWidget(tr("Diagnostics"), this);
    diagnosticsDock->setObjectName(QStringLiteral("diagnosticsDock"));
    diagnostics_ = new QPlainTextEdit(diagnosticsDock);
    diagnostics_->setReadOnly(true);
    diagnostics_->setObjectName(QStringLiteral("diagnostics"));
    diagnosticsDock->setWidget(diagnostics_);
    addDockWidget(Qt::BottomDockWidgetArea, diagnosticsDock);
    // First-start proportions; a saved layout (restoreLayout) replaces them.
    auto* evaluationDock = new QDockWidget(tr("Evaluation"), this);
    evaluationDock->setObjectName(QStringLiteral("evaluationDock"));
    evaluation_ = new EvaluationPanel(evaluationDock);
    evaluation_->setRunsProvider([this] {
        QStringList runs;
        if (session_->isOpen())
            for (const auto& run : session_->store()->runs()) runs << QString::fromStdString(run.directory.string());
        return runs;
    });
    evaluationDock->setWidget(evaluation_);
    addDockWidget(Qt::BottomDockWidgetArea, evaluationDock);
    connect(evaluation_, &EvaluationPanel::mentionActivated, this, &MainWindow::showMention);
    connect(evaluation_, &EvaluationPanel::runFailed, this,
            [this](const QString& message) { diagnostics_->appendPlainText(message); });

    tabifyDockWidget(candidatesDock, kbDock);
    tabifyDockWidget(diagnosticsDock, evaluationDock);
    tabifyDockWidget(evaluationDock, plotDock);
    tabifyDockWidget(kbDock, summaryDock);
    tabifyDockWidget(summaryDock, trainingDock);
    tabifyDockWidget(diagnosticsDock, rawDock);
    candidatesDock->raise();
    diagnosticsDock->raise();
    resizeDocks({documentsDock, candidatesDock}, {380, 520}, Qt::Horizontal);
    resizeDocks({diagnosticsDock}, {140}, Qt::Vertical);
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Project…"), this, &MainWindow::chooseProject);
    open->setShortcut(QKeySequence::Open);
    QAction* exportAction = file->addAction(tr("&Export…"), this, &MainWindow::chooseExport);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    // Several curators (issue 18): merge another curator's file, then adjudicate.
    file->addAction(tr("&Merge Another Curator's Project…"), this, &MainWindow::chooseMerge);
    file->addAction(tr("&Adjudicate Disagreements…"), this, [this] {
        adjudicationDialog()->show();
        adjudication_->raise();
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    createCurationActions(menuBar()->addMenu(tr("&Edit")));
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

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // A window shortcut on Enter (accept the link) would take the key from a text field, which
    // QLineEdit does not claim: claim it for the field.
    if (watched == documentSearch_ && event->type() == QEvent::ShortcutOverride) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            event->accept();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::restoreLayout() {
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    loader_->cancel();
    event->accept();
}

void MainWindow::chooseProject() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), QString(),
                                                      tr("Linkscope projects (*.linkscope *.json)"));
    if (!path.isEmpty()) openProject(path);
}

void MainWindow::chooseExport() {
    if (!project_ || !session_->isOpen()) return;
    QStringList splits;
    for (const auto& split : project_->splits) splits << QString::fromStdString(split.split);
    ExportDialog dialog(splits, QFileInfo(QString::fromStdString(project_->manifest.file.string())).absolutePath(),
                        this);
    if (dialog.exec() == QDialog::Accepted) startExport(dialog.options());
}

void MainWindow::chooseMerge() {
    if (!session_->isOpen()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Merge Another Curator's Project"), QString(),
                                                      tr("Linkscope project files (*.linkscope)"));
    if (!path.isEmpty()) mergeProject(path);
}

bool MainWindow::mergeProject(const QString& projectFile) {
    if (!session_->startMerge(projectFile)) return false;
    statusLabel_->setText(tr("Merging the decisions of %1…").arg(projectFile));
    progressBar_->setValue(0);
    progressBar_->setVisible(true);
    cancelButton_->setVisible(true);
    return true;
}

AdjudicationDialog* MainWindow::adjudicationDialog() {
    if (!adjudication_) {
        adjudication_ = new AdjudicationDialog(session_, this);
        connect(adjudication_, &AdjudicationDialog::mentionActivated, this, &MainWindow::showMention);
    }
    return adjudication_;
}

bool MainWindow::startExport(const curation::ExportOptions& options) {
    if (!project_ || !session_->isOpen() || exporting_) return false;
    // The decisions are read here (milliseconds); reading and writing the corpora is the worker's.
    auto input = std::make_shared<const curation::ExportInput>(curation::exportInputOf(*session_->store()));
    exporting_ = true;
    statusLabel_->setText(tr("Exporting…"));
    auto* watcher = new QFutureWatcher<std::pair<QStringList, QString>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        const auto [lines, error] = watcher->result();
        watcher->deleteLater();
        exporting_ = false;
        if (!error.isEmpty()) {
            diagnostics_->appendPlainText(tr("Export failed: %1").arg(error));
            statusLabel_->setText(tr("Export failed"));
            Q_EMIT exportFailed(error);
            return;
        }
        for (const QString& line : lines) diagnostics_->appendPlainText(line);
        statusLabel_->setText(tr("Exported: %1").arg(lines.isEmpty() ? QString() : lines.back()));
        Q_EMIT exportFinished(lines);
    });
    watcher->setFuture(QtConcurrent::run(&exportPool_, [input, options]() -> std::pair<QStringList, QString> {
        try {
            const curation::ExportReport report = curation::exportProject(*input, options);
            QStringList lines;
            for (const auto& note : report.notes) lines << QStringLiteral("note: ") + QString::fromStdString(note);
            for (const auto& line : report.lines) lines << QString::fromStdString(line);
            return {lines, {}};
        } catch (const std::exception& error) {
            return {{}, QString::fromUtf8(error.what())};
        }
    }));
    return true;
}

void MainWindow::openProject(const QString& manifestPath) {
    training_->setStore(nullptr);  // the store closes with the session
    session_->close();
    candidates_->model()->clear();
    candidates_->clearOffer();
    offer_ = {};
    statusLabel_->setText(tr("Opening %1…").arg(manifestPath));
    progressBar_->setValue(0);
    progressBar_->setVisible(true);
    cancelButton_->setVisible(true);
    loader_->load(manifestPath);
}

void MainWindow::showLoadProgress(const QString& stage, int percent) {
    statusLabel_->setText(stage);
    progressBar_->setValue(percent);
}

void MainWindow::finishLoading() {
    progressBar_->setVisible(false);
    cancelButton_->setVisible(false);
}

void MainWindow::startKbIndexing() {
    if (!kbIndexAfterRanker_) return;
    kbIndexAfterRanker_ = false;
    kbDock_->startIndexing();
}

void MainWindow::showProject(std::shared_ptr<const LoadedProject> project) {
    project_ = std::move(project);
    kbIndexAfterRanker_ = false;
    const QString opened = loader_->path();
    const QString projectFile =
        opened.endsWith(QLatin1String(".linkscope")) ? opened : CurationSession::projectFileForManifest(opened);
    if (const QString error = session_->open(project_, projectFile); !error.isEmpty()) {
        diagnostics_->appendPlainText(tr("Decisions cannot be saved: %1").arg(error));
    }
    // What points into the previous project or its store goes now, not a turn later.
    training_->setStore(session_->isOpen() ? session_->store() : nullptr);
    embeddingPlot_->setOptions({});  // a run's encoder belongs to the previous project's linking
    currentDocument_ = nullptr;
    currentSplit_.clear();
    setWindowTitle(tr("%1 — Linkscope").arg(QString::fromStdString(project_->manifest.name)));
    view_->clearDocument();
    correctionSearch_->setIndex(nullptr);
    // The views take the project one per turn of the event loop: together they take longer than
    // the 100 ms the UI thread may stall (benchmarks/ui_stall, docs/benchmarks.md).
    runInTurns({
        [this] {
            training_->setProject(project_);
            documents_->setProject(project_);
            documents_->setReviewFunction([this](const std::string& split, const Document& document) {
                const CurationSession::DocumentReview review = session_->review(split, document);
                return DocumentListModel::Review{review.mentions, review.reviewed, review.disagreements,
                                                 review.lowConfidence};
            });
        },
        [this] { refreshReview(); },
        [this] { kbSummary_->setProject(project_); },
        [this] {
            // The KB's search index after the candidate ranker, not beside it (issue 17): at UMLS
            // size both take minutes on two cores and hold their build's memory at once; the
            // curator needs the candidates first.
            const bool afterRanker = session_->isOpen() && !session_->candidatesAvailable();
            kbDock_->setProject(project_, !afterRanker);
            kbIndexAfterRanker_ = afterRanker;
        },
        [this] {
            evaluation_->setProject(project_);
            embeddingPlot_->setProject(project_);
        },
        [this] {
            diagnostics_->clear();
            for (const auto& diagnostic : project_->diagnostics)
                diagnostics_->appendPlainText(QString::fromStdString(diagnostic.toString()));
            if (session_->isOpen())
                diagnostics_->appendPlainText(tr("Decisions are saved in %1 (%2 so far)")
                                                  .arg(session_->projectFile())
                                                  .arg(session_->store()->decisionCount()));
            std::size_t mentions = 0;
            for (const auto& split : project_->splits)
                for (const auto& document : split.corpus.documents()) mentions += document.mentions.size();
            statusLabel_->setText(tr("%1 documents, %2 mentions; %3 diagnostics")
                                      .arg(documents_->rowCount())
                                      .arg(mentions)
                                      .arg(project_->diagnostics.size()));
        },
        [this] {
            if (documents_->rowCount() > 0) documentTable_->selectRow(0);
            Q_EMIT projectLoaded();
        },
    });
}

void MainWindow::runInTurns(std::vector<std::function<void()>> steps) {
    showTurns_.start(
        [steps = std::move(steps), next = std::size_t{0}]() mutable {
            if (next < steps.size()) steps[next++]();
            return next < steps.size();
        },
        TurnScheduler::FirstTurn::Queued);
}

void MainWindow::showDocumentAt(const QModelIndex& proxyIndex) {
    const QModelIndex source = documentFilter_->mapToSource(proxyIndex);
    const Document* document = documents_->documentAt(source.row());
    if (document) documentFilter_->setPinnedRow(source.row());
    currentDocument_ = document && project_ ? document : nullptr;
    currentSplit_.clear();
    if (currentDocument_) {
        const int split =
            documents_->data(documents_->index(source.row(), 0), DocumentListModel::SplitIndexRole).toInt();
        currentSplit_ = project_->splits[static_cast<std::size_t>(split)].split;
        // Its proposals (the mentions' colours, its review figures) before the rest's.
        session_->prioritizeDocument(currentSplit_, currentDocument_->pmid());
    }
    if (!document || !project_) {
        view_->clearDocument();
        showCandidates();
        documentHeader_->setText(tr("No document selected"));
        return;
    }
    documentHeader_->setText(
        tr("PMID %1 · %2 mentions").arg(QString::fromStdString(document->pmid())).arg(document->mentions.size()));
    view_->showDocument(QString::fromStdString(document->title), QString::fromStdString(document->abstract),
                        mentionSpans(*document, *project_, statusFunction()));
    // The raw file follows the document (read once per file, on a worker).
    if (!document->sourceFile.empty()) {
        const QString file = QString::fromStdString(document->sourceFile);
        if (rawView_->filePath() != file) rawView_->loadFile(file);
        rawView_->goToLine(static_cast<int>(document->sourceLine));
    }
}

bool MainWindow::showMention(const QString& split, const QString& pmid, int start, int end) {
    for (int row = 0; row < documentFilter_->rowCount(); ++row) {
        const QModelIndex proxy = documentFilter_->index(row, 0);
        const QModelIndex source = documentFilter_->mapToSource(proxy);
        const Document* document = documents_->documentAt(source.row());
        const int splitIndex =
            documents_->data(documents_->index(source.row(), 0), DocumentListModel::SplitIndexRole).toInt();
        if (!document || QString::fromStdString(document->pmid()) != pmid ||
            QString::fromStdString(project_->splits[static_cast<std::size_t>(splitIndex)].split) != split)
            continue;
        documentTable_->selectRow(row);
        for (std::size_t i = 0; i < document->mentions.size(); ++i)
            if (static_cast<int>(document->mentions[i].start) == start &&
                static_cast<int>(document->mentions[i].end) == end) {
                view_->selectMention(static_cast<int>(i));
                view_->setFocus();
                return true;
            }
        return false;
    }
    return false;
}

MentionStatusFn MainWindow::statusFunction() const {
    if (!session_->isOpen() || !currentDocument_) return {};
    return [this](const Mention& mention) {
        MentionStatus status;
        const project::MentionKey key{currentSplit_, currentDocument_->pmid(), mention.start, mention.end};
        const auto decision = session_->currentDecision(key);
        if (!decision || decision->kind == project::DecisionKind::Skip) {
            status.state = session_->candidatesAvailable() ? MentionState::Predicted : MentionState::Unreviewed;
            if (decision)
                status.note = tr("skipped by %1").arg(QString::fromStdString(decision->curator).toHtmlEscaped());
            return status;
        }
        switch (decision->kind) {
            case project::DecisionKind::Accept:
                status.state = MentionState::Accepted;
                break;
            case project::DecisionKind::Correct:
                status.state = MentionState::Corrected;
                break;
            default:
                status.state = MentionState::Rejected;
                break;
        }
        status.note =
            tr("%1: %2<br>by %3, %4")
                .arg(QString::fromUtf8(project::decisionKindName(decision->kind).data()),
                     QString::fromStdString(decision->newLink.empty() ? std::string("(no link)") : decision->newLink),
                     QString::fromStdString(decision->curator).toHtmlEscaped(),
                     QString::fromStdString(decision->timestamp));
        return status;
    };
}

void MainWindow::refreshReview(const std::vector<project::MentionKey>& changed) {
    // Once per document: a decision often reaches several mentions of one abstract.
    std::set<std::pair<std::string, std::string>> distinct;
    for (const project::MentionKey& key : changed) distinct.emplace(key.split, key.document);
    documents_->refreshReview({distinct.begin(), distinct.end()});
    showReviewProgress();
    refreshReviewQueue();
}

void MainWindow::refreshReview() {
    documents_->refreshReview();
    showReviewProgress();
    refreshReviewQueue();
}

void MainWindow::refreshReviewQueue() {
    // Only while the filter shows it: the queue is a pass over every mention of the project.
    if (documentFilter_->reviewFilter() != DocumentFilterModel::Review::WorthReviewing) return;
    reviewPriorities_ = documentPriorities(reviewQueueOf(*session_));
    documentFilter_->setPriorityFunction([this](int sourceRow) {
        const Document* document = documents_->documentAt(sourceRow);
        if (!document || !project_) return 0.0;
        const int split = documents_->data(documents_->index(sourceRow, 0), DocumentListModel::SplitIndexRole).toInt();
        const auto found =
            reviewPriorities_.find({project_->splits[static_cast<std::size_t>(split)].split, document->pmid()});
        return found == reviewPriorities_.end() ? 0.0 : found->second;
    });
}

void MainWindow::previewReach(const QString& entity) {
    const Mention* mention = currentMention();
    const auto key = currentMentionKey();
    if (entity.isEmpty() || !mention || !key || !session_->isOpen()) {
        candidates_->reachPreview()->clear();
        return;
    }
    // The proposal known for every mention, not a new ranking per listed mention (a frequent
    // text lists ~175 mentions on NCBI Disease: benchmarks/review_queue).
    const auto before = [&](const CurationSession::MentionRef& ref) {
        const auto proposal = session_->proposal(ref.key);
        const std::string link = proposal ? proposal->entity : session_->proposedLink(ref.key, *ref.mention);
        return link.empty() ? tr("no candidate") : QString::fromStdString(link);
    };
    const auto where = [](const CurationSession::MentionRef& ref) {
        return tr("%1 · PMID %2 · “%3”")
            .arg(QString::fromStdString(ref.key.split), QString::fromStdString(ref.key.document),
                 QString::fromStdString(ref.mention->text));
    };
    std::vector<ReachPreview::Entry> sameText, datastore;
    std::set<project::MentionKey> listed;
    for (const auto& ref : session_->sameSurface(*key, *mention, entity.toStdString())) {
        sameText.push_back({ref.key, tr("%1: %2 → %3").arg(where(ref), before(ref), entity)});
        listed.insert(ref.key);
    }
    for (const auto& move : session_->datastoreMoves(*key, entity.toStdString()))
        if (!listed.contains(move.ref.key))
            datastore.push_back(
                {move.ref.key, tr("%1: %2 → %3")
                                   .arg(where(move.ref),
                                        move.before.empty() ? tr("no candidate") : QString::fromStdString(move.before),
                                        move.after.empty() ? tr("no candidate") : QString::fromStdString(move.after))});
    candidates_->reachPreview()->showReach(entity, sameText, datastore);
}

int MainWindow::showChangedByLastDecision() {
    if (!project_ || !session_->isOpen()) return 0;
    std::vector<ReachPreview::Entry> entries;
    for (const project::MentionKey& key : session_->changedByLastDecision()) {
        const Mention* mention = session_->mentionOf(key);
        if (!mention) continue;
        const std::string now = session_->proposedLink(key, *mention);
        entries.push_back({key, tr("%1 · PMID %2 · “%3”: now %4")
                                    .arg(QString::fromStdString(key.split), QString::fromStdString(key.document),
                                         QString::fromStdString(mention->text),
                                         now.empty() ? tr("no candidate") : QString::fromStdString(now))});
    }
    candidates_->reachPreview()->showChanged(tr("The last decision"), entries);
    return static_cast<int>(entries.size());
}

bool MainWindow::nextWorthReviewing() {
    const std::vector<QueuedMention> queue = reviewQueueOf(*session_);
    if (queue.empty()) {
        statusLabel_->setText(session_->proposalsAvailable() ? tr("No mention is left to review")
                                                             : tr("The candidates are still being ranked"));
        return false;
    }
    const project::MentionKey& key = queue.front().key;
    const auto show = [&] {
        return showMention(QString::fromStdString(key.split), QString::fromStdString(key.document),
                           static_cast<int>(key.start), static_cast<int>(key.end));
    };
    // Its document may be hidden by the text or review filter: show every document then.
    if (!show()) {
        documentSearch_->clear();
        reviewFilter_->setCurrentIndex(0);
        if (!show()) return false;
    }
    statusLabel_->setText(tr("Worth reviewing: priority %1, %n undecided mention(s) in the queue", nullptr,
                             static_cast<int>(queue.size()))
                              .arg(queue.front().priority, 0, 'f', 2));
    return true;
}

void MainWindow::showReviewProgress() {
    // From the decisions alone: summing every document's review figures ranks nothing but still
    // costs ~100 ms on NCBI Disease, too long for the GUI thread after every decision.
    QStringList parts;
    if (project_)
        for (const SplitCorpus& split : project_->splits) {
            std::size_t mentions = 0;
            for (const Document& document : split.corpus.documents()) mentions += document.mentions.size();
            parts << tr("%1: %2/%3 reviewed")
                         .arg(QString::fromStdString(split.split))
                         .arg(session_->reviewedIn(split.split))
                         .arg(mentions);
        }
    reviewProgress_->setText(parts.join(QStringLiteral(" · ")));
}

void MainWindow::refreshMentionStates() {
    if (!currentDocument_ || !project_) return;
    view_->updateSpans(mentionSpans(*currentDocument_, *project_, statusFunction()));
}

const Mention* MainWindow::currentMention() const {
    const int index = view_->currentMention();
    if (!currentDocument_ || index < 0 || index >= static_cast<int>(currentDocument_->mentions.size())) return nullptr;
    return &currentDocument_->mentions[static_cast<std::size_t>(index)];
}

std::optional<project::MentionKey> MainWindow::currentMentionKey() const {
    const Mention* mention = currentMention();
    if (!mention) return std::nullopt;
    return project::MentionKey{currentSplit_, currentDocument_->pmid(), mention->start, mention->end};
}

void MainWindow::showCandidates() {
    const Mention* mention = currentMention();
    const auto key = currentMentionKey();
    if (!mention || !key || !project_) {
        candidates_->model()->clear();
        candidates_->setMentionSummary(tr("No mention selected"));
        candidates_->setActionsEnabled(false);
        return;
    }
    // One ranking of the mention for both the list and, while no proposal is kept, its top.
    std::vector<curation::CandidateRow> rows = session_->candidates(*key, *mention);
    const std::string current = session_->linkInEffect(*key, *mention, &rows);
    candidates_->reachPreview()->clear();  // a new list: no candidate selected yet
    candidates_->model()->setCandidates(std::move(rows), project_->kb.get(), mention->ids.ids, current);
    QString summary =
        tr("<b>%1</b> <i>%2</i> · gold: %3")
            .arg(QString::fromStdString(mention->text).toHtmlEscaped(),
                 QString::fromStdString(mention->type).toHtmlEscaped(),
                 mention->ids.cuiLess ? tr("none (CUI-less)")
                                      : QString::fromStdString(mention->idColumn).trimmed().toHtmlEscaped());
    if (const auto decision = session_->currentDecision(*key))
        summary +=
            tr("<br>%1 → %2 (by %3)")
                .arg(QString::fromUtf8(project::decisionKindName(decision->kind).data()),
                     QString::fromStdString(decision->newLink.empty() ? std::string("no link") : decision->newLink),
                     QString::fromStdString(decision->curator).toHtmlEscaped());
    if (const int index = view_->currentMention(); index >= 0 && index < view_->spans().size())
        if (const QString expansion = view_->spans().at(index).expansion; !expansion.isEmpty())
            summary += tr("<br>abbreviation, linked as “%1”").arg(expansion.toHtmlEscaped());
    summary += tr("<br><small>Ranked by %1</small>").arg(session_->rankerDescription().toHtmlEscaped());
    candidates_->setMentionSummary(summary);
    candidates_->setActionsEnabled(session_->isOpen());
}

bool MainWindow::decideCurrent(project::DecisionKind kind, const QString& entityId) {
    const Mention* mention = currentMention();
    const auto key = currentMentionKey();
    if (!mention || !key || !session_->isOpen()) return false;
    if ((kind == project::DecisionKind::Accept) && session_->linkInEffect(*key, *mention).empty()) {
        statusLabel_->setText(tr("Nothing to accept yet: pick a candidate or search the knowledge base"));
        return false;
    }
    const bool stored = session_->decide(*key, *mention, kind, entityId.toStdString());
    if (stored) {
        statusLabel_->setText(tr("Saved: %1").arg(session_->undoStack()->undoText()));
        offerSameSurface(*key, *mention, kind);
    }
    return stored;
}

void MainWindow::offerSameSurface(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind) {
    candidates_->clearOffer();
    offer_ = {};
    if (kind != project::DecisionKind::Accept && kind != project::DecisionKind::Correct &&
        kind != project::DecisionKind::Nil)
        return;
    const auto decision = session_->currentDecision(key);
    if (!decision) return;
    const auto same = session_->sameSurface(key, mention, decision->newLink);
    if (same.empty()) return;
    QStringList lines;
    for (const auto& ref : same) {
        offer_.mentions.emplace_back(ref.key, ref.mention);
        const std::string before = session_->proposedLink(ref.key, *ref.mention);
        lines << tr("%1 · PMID %2 · “%3”: %4 → %5")
                     .arg(QString::fromStdString(ref.key.split), QString::fromStdString(ref.key.document),
                          QString::fromStdString(ref.mention->text),
                          before.empty() ? tr("no candidate") : QString::fromStdString(before),
                          QString::fromStdString(decision->newLink));
    }
    offer_.kind = kind;
    offer_.link = decision->newLink;
    candidates_->offerSameSurface(
        tr("%n other unreviewed mention(s) read “%1” and are linked differently. "
           "Apply “%2” to all of them?",
           nullptr, static_cast<int>(same.size()))
            .arg(QString::fromStdString(mention.text).toHtmlEscaped(), QString::fromStdString(decision->newLink)),
        lines);
}

void MainWindow::applyOffer() {
    std::vector<CurationSession::MentionRef> refs;
    for (const auto& [key, mention] : offer_.mentions) refs.push_back({key, mention});
    const int stored = session_->decideAll(refs, offer_.kind, offer_.link);
    statusLabel_->setText(tr("Applied to %n mention(s)", nullptr, stored));
    offer_ = {};
}

void MainWindow::createCurationActions(QMenu* edit) {
    QAction* undo = session_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = session_->undoStack()->createRedoAction(this, tr("&Redo"));
    // The platform's redo keys, plus both common ones (some platform themes know only one).
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    for (const QKeySequence& key : {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
        if (!redoKeys.contains(key)) redoKeys << key;
    redo->setShortcuts(redoKeys);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // Curation keys work wherever the focus is, except in text fields (they take the keys as
    // typing, through ShortcutOverride).
    auto addKey = [this, edit](const QString& text, const QList<QKeySequence>& keys, auto slot) {
        QAction* action = edit->addAction(text);
        action->setShortcuts(keys);
        action->setShortcutContext(Qt::WindowShortcut);
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        return action;
    };
    addKey(tr("&Accept link"), {QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)},
           [this] { candidates_->accept(); });
    addKey(tr("&Reject link"), {QKeySequence(Qt::Key_R)}, [this] { decideCurrent(project::DecisionKind::Reject); });
    addKey(tr("Mark as &NIL"), {QKeySequence(Qt::Key_0)}, [this] { decideCurrent(project::DecisionKind::Nil); });
    addKey(tr("&Skip"), {QKeySequence(Qt::Key_S)}, [this] { decideCurrent(project::DecisionKind::Skip); });
    // The review queue (issue 18, ui/review_queue_order.h): the undecided mention most worth a look.
    addKey(tr("Next Mention &Worth Reviewing"), {QKeySequence(Qt::Key_F8)}, [this] { nextWorthReviewing(); });
    // In a submenu, not hidden: a hidden action's shortcut does not fire.
    QMenu* pick = edit->addMenu(tr("&Pick candidate"));
    for (int rank = 1; rank <= 9; ++rank) {
        QAction* action = addKey(tr("Candidate %1").arg(rank), {QKeySequence(Qt::Key_0 + rank)},
                                 [this, rank] { candidates_->pick(rank); });
        edit->removeAction(action);
        pick->addAction(action);
    }
}

}  // namespace linkscope::ui
