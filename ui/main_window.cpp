#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
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
#include <QVBoxLayout>

#include "corpus/corpus.h"
#include "document_list_model.h"
#include "document_view.h"
#include "knowledge_base_summary.h"
#include "mention_adapter.h"
#include "mention_palette.h"
#include "project/loaded_project.h"
#include "project_loader.h"

namespace linkscope::ui {
namespace {

QWidget* makeLegend(QWidget* parent) {
    auto* legend = new QWidget(parent);
    auto* layout = new QHBoxLayout(legend);
    layout->setContentsMargins(4, 2, 4, 2);
    for (const MentionState state : {MentionState::Unreviewed, MentionState::Predicted, MentionState::Accepted,
                                     MentionState::Corrected, MentionState::Rejected}) {
        auto* label = new QLabel(mentionStateName(state), legend);
        label->setStyleSheet(QStringLiteral("QLabel { background: %1; color: black; padding: 1px 6px; border-radius: 3px; }")
                                 .arg(mentionColor(state).name()));
        layout->addWidget(label);
    }
    auto* composite = new QLabel(QObject::tr("<u>composite</u>"), legend);
    layout->addWidget(composite);
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

    createDocks();
    createActions();

    progressBar_ = new QProgressBar(this);
    progressBar_->setMaximumWidth(240);
    progressBar_->setVisible(false);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setVisible(false);
    statusLabel_ = new QLabel(this);
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
    documentSearch_->setPlaceholderText(tr("Filter by PMID or title"));
    documentSearch_->setClearButtonEnabled(true);
    documents_ = new DocumentListModel(this);
    documentFilter_ = new QSortFilterProxyModel(this);
    documentFilter_->setSourceModel(documents_);
    documentFilter_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    documentFilter_->setFilterKeyColumn(-1);
    documentFilter_->setSortRole(Qt::DisplayRole);
    documentTable_ = new QTableView(panel);
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
    header->setSectionResizeMode(DocumentListModel::TitleColumn, QHeaderView::Stretch);
    documentTable_->verticalHeader()->setDefaultSectionSize(documentTable_->fontMetrics().height() + 6);
    layout->addWidget(documentSearch_);
    layout->addWidget(documentTable_, 1);
    documentsDock->setWidget(panel);
    addDockWidget(Qt::LeftDockWidgetArea, documentsDock);
    connect(documentSearch_, &QLineEdit::textChanged, documentFilter_, &QSortFilterProxyModel::setFilterFixedString);
    connect(documentTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showDocumentAt(current); });

    auto* kbDock = new QDockWidget(tr("Knowledge base"), this);
    kbDock->setObjectName(QStringLiteral("knowledgeBaseDock"));
    kbSummary_ = new KnowledgeBaseSummary(kbDock);
    kbDock->setWidget(kbSummary_);
    addDockWidget(Qt::RightDockWidgetArea, kbDock);

    auto* diagnosticsDock = new QDockWidget(tr("Diagnostics"), this);
    diagnosticsDock->setObjectName(QStringLiteral("diagnosticsDock"));
    diagnostics_ = new QPlainTextEdit(diagnosticsDock);
    diagnostics_->setReadOnly(true);
    diagnostics_->setObjectName(QStringLiteral("diagnostics"));
    diagnosticsDock->setWidget(diagnostics_);
    addDockWidget(Qt::BottomDockWidgetArea, diagnosticsDock);
    // First-start proportions; a saved layout (restoreLayout) replaces them.
    resizeDocks({documentsDock, kbDock}, {420, 360}, Qt::Horizontal);
    resizeDocks({diagnosticsDock}, {110}, Qt::Vertical);
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Project…"), this, &MainWindow::chooseProject);
    open->setShortcut(QKeySequence::Open);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Linkscope"), this, [this] {
        QMessageBox::about(this, tr("About Linkscope"),
                           tr("<b>Linkscope %1</b><p>Biomedical entity linking: curation, training and error analysis.</p>")
                               .arg(QApplication::applicationVersion()));
    });
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
                                                      tr("Linkscope project manifests (*.json)"));
    if (!path.isEmpty()) openProject(path);
}

void MainWindow::openProject(const QString& manifestPath) {
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

void MainWindow::showProject(std::shared_ptr<const LoadedProject> project) {
    project_ = std::move(project);
    documents_->setProject(project_);
    kbSummary_->setProject(project_);
    view_->clearDocument();
    diagnostics_->clear();
    for (const auto& diagnostic : project_->diagnostics)
        diagnostics_->appendPlainText(QString::fromStdString(diagnostic.toString()));
    setWindowTitle(tr("%1 — Linkscope").arg(QString::fromStdString(project_->manifest.name)));
    std::size_t mentions = 0;
    for (const auto& split : project_->splits)
        for (const auto& document : split.corpus.documents()) mentions += document.mentions.size();
    statusLabel_->setText(tr("%1 documents, %2 mentions; %3 diagnostics")
                              .arg(documents_->rowCount())
                              .arg(mentions)
                              .arg(project_->diagnostics.size()));
    if (documents_->rowCount() > 0) documentTable_->selectRow(0);
    Q_EMIT projectLoaded();
}

void MainWindow::showDocumentAt(const QModelIndex& proxyIndex) {
    const QModelIndex source = documentFilter_->mapToSource(proxyIndex);
    const Document* document = documents_->documentAt(source.row());
    if (!document || !project_) {
        view_->clearDocument();
        documentHeader_->setText(tr("No document selected"));
        return;
    }
    documentHeader_->setText(tr("PMID %1 · %2 mentions")
                                 .arg(QString::fromStdString(document->pmid()))
                                 .arg(document->mentions.size()));
    view_->showDocument(QString::fromStdString(document->title), QString::fromStdString(document->abstract),
                        mentionSpans(*document, *project_));
}

}  // namespace linkscope::ui
