#include "screenshot_tour.h"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QTimer>

#include "corpus/corpus.h"
#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "document_view.h"
#include "embedding_plot.h"
#include "evaluation_panel.h"
#include "evaluation_run.h"
#include "knowledge_base_dock.h"
#include "main_window.h"

using linkscope::ui::MainWindow;

namespace {
// Each view: the dock raised for it (by object name) and the PNG's name. Docks the build does not
// have are passed over.
struct View {
    const char* dock;
    const char* file;
};
constexpr View kViews[] = {
    {"candidatesDock", "curation.png"},      {"knowledgeBaseDock", "knowledge-base.png"},
    {"vocabularyDock", "vocabulary.png"},    {"rawFileDock", "raw-file.png"},
    {"embeddingDock", "embedding-plot.png"}, {"evaluationDock", "evaluation.png"},
    {"trainingDock", "training.png"},
};
}  // namespace

ScreenshotTour::ScreenshotTour(MainWindow& window, QString folder)
    : QObject(&window), window_(&window), folder_(std::move(folder)) {}

void ScreenshotTour::start() {
    QDir().mkpath(folder_);
    window_->resize(1600, 1000);  // the Xvfb screen of tools/take-screenshots.sh
    connect(window_, &MainWindow::projectFailed, this, [] { QCoreApplication::exit(1); });
    // Ready when every mention is ranked (the filters and colours are final) and the KB indexed.
    auto ready = [this] {
        if (!window_->session()->proposalsAvailable() || window_->knowledgeBaseDock()->isIndexing()) return;
        // Once: linking with a run (setRun) announces its proposals again.
        if (started_ || failed_) return;
        started_ = true;
        for (const View& view : kViews) remaining_ << QString::fromLatin1(view.dock);
        // The third mention of the first document, for a candidate list with some competition.
        window_->documentView()->selectMention(2);
        QTimer::singleShot(500, this, &ScreenshotTour::next);
    };
    connect(window_->session(), &linkscope::ui::CurationSession::proposalsReady, this, ready);
    connect(window_->knowledgeBaseDock(), &linkscope::ui::KnowledgeBaseDock::searchIndexReady, this, ready);
}

void ScreenshotTour::prepareView(const QString& dockName) {
    auto* dock = window_->findChild<QDockWidget*>(dockName);
    if (!dock) return;
    dock->show();
    dock->raise();
    if (dockName == QLatin1String("knowledgeBaseDock")) {
        // The entity page of the selected mention's first gold id.
        if (const auto key = window_->currentMentionKey(); key && window_->currentDocument())
            for (const auto& mention : window_->currentDocument()->mentions)
                if (mention.start == key->start && mention.end == key->end && !mention.ids.ids.empty()) {
                    plotEntity_ = QString::fromStdString(mention.ids.ids.front());
                    window_->knowledgeBaseDock()->showEntity(plotEntity_);
                }
    }
}

void ScreenshotTour::next() {
    while (!remaining_.isEmpty()) {
        QString dock = remaining_.takeFirst();
        const bool shotOnly = dock.endsWith(QLatin1String(":shot"));  // prepared, result arrived
        if (shotOnly) dock.chop(5);
        if (!window_->findChild<QDockWidget*>(dock)) continue;
        if (shotOnly) {
            QTimer::singleShot(400, this, [this, dock] { grabView(dock); });
            return;
        }
        prepareView(dock);
        // The evaluation view shows a result: the sparse linker on the first evaluable split.
        auto* evaluation = window_->evaluationPanel();
        if (dock == QLatin1String("evaluationDock") && evaluation && window_->project()) {
            const auto splits = linkscope::ui::evaluableSplits(*window_->project());
            if (!splits.empty() && evaluation->startSparseEvaluation(QString::fromStdString(splits.front()),
                                                                     linkscope::ui::EvaluationPanel::SlotA)) {
                remaining_.prepend(QStringLiteral("evaluationDock:shot"));
                connect(
                    evaluation, &linkscope::ui::EvaluationPanel::runReady, this, [this] { next(); },
                    Qt::SingleShotConnection);
                return;
            }
        }
        // The embedding plot of the selected mention's gold entity, once computed.
        auto* plot = window_->embeddingPlot();
        if (dock == QLatin1String("embeddingDock") && plot && !plotEntity_.isEmpty()) {
            remaining_.prepend(QStringLiteral("embeddingDock:shot"));
            connect(
                plot, &linkscope::ui::EmbeddingPlot::computed, this, [this] { next(); }, Qt::SingleShotConnection);
            connect(
                plot, &linkscope::ui::EmbeddingPlot::failed, this, [this] { next(); }, Qt::SingleShotConnection);
            plot->showEntity(plotEntity_);
            return;
        }
        QTimer::singleShot(400, this, [this, dock] { grabView(dock); });
        return;
    }
    if (!run_.isEmpty() && !runShot_ && !failed_) {
        shootRun();
        return;
    }
    QCoreApplication::exit(failed_ ? 2 : 0);
}

void ScreenshotTour::shootRun() {
    runShot_ = true;
    auto* session = window_->session();
    connect(
        session, &linkscope::ui::CurationSession::runLinked, this,
        [this] {
            prepareView(QStringLiteral("candidatesDock"));
            window_->documentView()->selectMention(2);
            QTimer::singleShot(500, this, [this] {
                if (!window_->grab().save(folder_ + QStringLiteral("/curation-trained-run.png"))) failed_ = true;
                next();
            });
        },
        Qt::SingleShotConnection);
    connect(
        session, &linkscope::ui::CurationSession::runLinkingCancelled, this,
        [this] {
            failed_ = true;
            next();
        },
        Qt::SingleShotConnection);
    session->linkWithRun(run_, linkscope::curation::LinkMode::Knn);
}

void ScreenshotTour::grabView(const QString& dock) {
    QString file;
    for (const View& view : kViews)
        if (dock == QLatin1String(view.dock)) file = QString::fromLatin1(view.file);
    if (!window_->grab().save(folder_ + QLatin1Char('/') + file)) failed_ = true;
    next();
}
