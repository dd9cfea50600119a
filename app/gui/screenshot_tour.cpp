#include "screenshot_tour.h"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>

#include <cstdio>
#include <utility>

#include "corpus/corpus.h"
#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "document_view.h"
#include "embedding_plot.h"
#include "evaluation_panel.h"
#include "evaluation_run.h"
#include "knowledge_base_dock.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "ranker_host.h"

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

QString fileOf(const QString& dock) {
    for (const View& view : kViews)
        if (dock == QLatin1String(view.dock)) return QString::fromLatin1(view.file);
    return {};
}

// How often a wait checks its condition, and how long a shown view settles before its grab.
constexpr int kPollMs = 200;
constexpr int kSettleMs = 400;
// The third mention of the first document, for a candidate list with some competition.
constexpr int kShownMention = 2;
// The percentage of the window's height a view below the document is shown at.
constexpr int kBottomViewShare = 55;

void say(const QString& line) {
    std::fprintf(stderr, "linkscope: screenshots: %s\n", qPrintable(line));
    std::fflush(stderr);
}
}  // namespace

ScreenshotTour::ScreenshotTour(MainWindow& window, QString folder)
    : QObject(&window), window_(&window), folder_(std::move(folder)) {
    poll_.setInterval(kPollMs);
    connect(&poll_, &QTimer::timeout, this, &ScreenshotTour::checkWait);
}

void ScreenshotTour::start() {
    QDir().mkpath(folder_);
    window_->resize(1600, 1000);  // the Xvfb screen of tools/take-screenshots.sh
    connect(window_, &MainWindow::projectFailed, this, [] { QCoreApplication::exit(1); });
    // Signals that leave no state to read later; connected before the project opens.
    connect(window_->evaluationPanel(), &linkscope::ui::EvaluationPanel::runFailed, this,
            [this] { evaluationFailed_ = true; });
    connect(window_->embeddingPlot(), &linkscope::ui::EmbeddingPlot::failed, this, [this] { plotFailed_ = true; });
    connect(window_->session()->rankers(), &linkscope::ui::RankerHost::runLinked, this, [this] { runLinked_ = true; });
    connect(window_->session()->rankers(), &linkscope::ui::RankerHost::runLinkingCancelled, this,
            [this] { runCancelled_ = true; });
    // Why a ranking or a run's linking failed (a build without the dense engine says so).
    connect(window_->session()->rankers(), &linkscope::ui::RankerHost::errorOccurred, this,
            [](const QString& message) { say(message); });
    connect(window_->knowledgeBaseDock(), &linkscope::ui::KnowledgeBaseDock::indexingFailed, this,
            [this] { indexFailed_ = true; });
    // Every mention ranked (the filters and colours are final) and the KB indexed for search.
    auto rankedAndIndexed = [this] {
        const auto* project = window_->project();
        if (!project || !window_->session()->rankers()->proposalsAvailable()) return false;
        return !project->kb || window_->knowledgeBaseDock()->searchIndex() || indexFailed_;
    };
    waitFor(
        QStringLiteral("the project"), QStringLiteral("every mention ranked and the KB indexed for search"),
        rankedAndIndexed, [this] { beginViews(); },
        [this] {
            QStringList missing;
            if (!window_->project())
                missing << QStringLiteral("the project is not loaded");
            else {
                if (!window_->session()->rankers()->proposalsAvailable())
                    missing << QStringLiteral("not every mention is ranked");
                if (!window_->knowledgeBaseDock()->searchIndex())
                    missing << QStringLiteral("the KB search index is not built");
            }
            say(QStringLiteral("giving up: %1").arg(missing.join(QStringLiteral("; "))));
            QCoreApplication::exit(3);
        });
}

void ScreenshotTour::waitFor(const QString& view, const QString& what, std::function<bool()> ready,
                             std::function<void()> then, std::function<void()> gaveUp) {
    wait_ = Wait{
        view, what, std::move(ready), std::move(then), std::move(gaveUp), std::chrono::steady_clock::now() + limit_};
    poll_.start();
}

void ScreenshotTour::checkWait() {
    if (!wait_) {
        poll_.stop();
        return;
    }
    if (wait_->ready()) {
        auto then = std::move(wait_->then);
        wait_.reset();
        poll_.stop();
        then();
        return;
    }
    if (std::chrono::steady_clock::now() < wait_->deadline) return;
    say(QStringLiteral("%1 was not ready after %2 s (waiting for %3)")
            .arg(wait_->view)
            .arg(limit_.count())
            .arg(wait_->what));
    timedOut_ = true;
    auto gaveUp = std::move(wait_->gaveUp);
    wait_.reset();
    poll_.stop();
    gaveUp();
}

void ScreenshotTour::beginViews() {
    for (const View& view : kViews) remaining_ << QString::fromLatin1(view.dock);
    window_->documentView()->selectMention(kShownMention);
    QTimer::singleShot(kSettleMs, this, &ScreenshotTour::next);
}

void ScreenshotTour::prepareView(const QString& dockName) {
    auto* dock = window_->findChild<QDockWidget*>(dockName);
    if (!dock) return;
    dock->show();
    dock->raise();
    // A view below the document gets the larger part of the window's height for its shot (the
    // default layout keeps that area low for the message log); grabView() gives it back.
    if (window_->dockWidgetArea(dock) == Qt::BottomDockWidgetArea) {
        enlarged_ = dock;
        enlargedFrom_ = dock->height();
        window_->resizeDocks({dock}, {window_->height() * kBottomViewShare / 100}, Qt::Vertical);
    }
    // The plot beside the page of the entity it plots.
    if (dockName == QLatin1String("embeddingDock"))
        if (auto* page = window_->findChild<QDockWidget*>(QStringLiteral("knowledgeBaseDock"))) page->raise();
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
        const QString dock = remaining_.takeFirst();
        if (!window_->findChild<QDockWidget*>(dock)) continue;
        prepareView(dock);
        const QString file = fileOf(dock);
        auto grab = [this, dock, file] {
            QTimer::singleShot(kSettleMs, this, [this, dock, file] { grabView(dock, file); });
        };
        auto skip = [this] { next(); };
        // The evaluation view shows a result: the sparse linker on the first evaluable split.
        auto* evaluation = window_->evaluationPanel();
        if (dock == QLatin1String("evaluationDock") && evaluation && window_->project()) {
            const auto splits = linkscope::ui::evaluableSplits(*window_->project());
            if (!splits.empty() && evaluation->startSparseEvaluation(QString::fromStdString(splits.front()),
                                                                     linkscope::ui::EvaluationPanel::SlotA)) {
                waitFor(
                    dock,
                    QStringLiteral("the sparse linker's evaluation on %1").arg(QString::fromStdString(splits.front())),
                    [this, evaluation] {
                        return evaluation->run(linkscope::ui::EvaluationPanel::SlotA) != nullptr || evaluationFailed_;
                    },
                    grab, skip);
                return;
            }
        }
        // The embedding plot of the selected mention's gold entity, once computed.
        auto* plot = window_->embeddingPlot();
        if (dock == QLatin1String("embeddingDock") && plot && !plotEntity_.isEmpty()) {
            plot->showEntity(plotEntity_);
            waitFor(
                dock, QStringLiteral("the plot of %1").arg(plotEntity_),
                [this, plot] { return (plot->layout() != nullptr && !plot->isComputing()) || plotFailed_; }, grab,
                skip);
            return;
        }
        grab();
        return;
    }
    if (!run_.isEmpty()) {
        shootRun();
        return;
    }
    finish();
}

void ScreenshotTour::shootRun() {
    const QString run = std::exchange(run_, QString());
    window_->session()->rankers()->linkWithRun(run, linkscope::curation::LinkMode::Knn);
    waitFor(
        QStringLiteral("curation-trained-run.png"), QStringLiteral("linking with the run %1").arg(run),
        [this] { return runLinked_ || runCancelled_; },
        [this] {
            if (!runLinked_) {
                say(QStringLiteral("the run was not linked"));
                failed_ = true;
                finish();
                return;
            }
            prepareView(QStringLiteral("candidatesDock"));
            window_->documentView()->selectMention(kShownMention);
            QTimer::singleShot(kSettleMs, this, [this] {
                grabView(QStringLiteral("candidatesDock"), QStringLiteral("curation-trained-run.png"));
            });
        },
        [this] { finish(); });
}

void ScreenshotTour::grabView(const QString& dock, const QString& file) {
    const QString path = folder_ + QLatin1Char('/') + file;
    if (window_->grab().save(path))
        say(QStringLiteral("%1 saved (%2)").arg(path, dock));
    else {
        say(QStringLiteral("could not write %1").arg(path));
        failed_ = true;
    }
    if (enlarged_) {
        window_->resizeDocks({enlarged_.data()}, {enlargedFrom_}, Qt::Vertical);
        enlarged_.clear();
    }
    next();
}

void ScreenshotTour::finish() { QCoreApplication::exit(failed_ ? 2 : timedOut_ ? 3 : 0); }
