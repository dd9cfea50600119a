#include "knowledge_base_dock.h"

#include <QElapsedTimer>
#include <QPromise>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "entity_page.h"
#include "entity_search_box.h"
#include "kb/entity_search.h"
#include "project/loaded_project.h"
#include "util/progress.h"
#include "worker_priority.h"

namespace linkscope::ui {
namespace {

// The index refers to the project's KB and homonym expansion: holding the project beside it
// keeps them alive for as long as anyone holds the index.
struct ProjectSearchIndex {
    ProjectSearchIndex(std::shared_ptr<const LoadedProject> p, const ProgressSink& progress)
        : project(std::move(p)), index(*project->kb, project->homonyms.get(), progress) {}
    std::shared_ptr<const LoadedProject> project;
    kb::EntitySearchIndex index;
};

}  // namespace

KnowledgeBaseDock::KnowledgeBaseDock(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("knowledgeBaseDock"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    splitter_ = new QSplitter(Qt::Vertical, this);
    splitter_->setObjectName(QStringLiteral("knowledgeBaseSplitter"));
    search_ = new EntitySearchBox(splitter_);
    page_ = new EntityPage(splitter_);
    splitter_->addWidget(search_);
    splitter_->addWidget(page_);
    splitter_->setStretchFactor(0, 1);
    splitter_->setStretchFactor(1, 2);
    layout->addWidget(splitter_);

    connect(search_, &EntitySearchBox::entityChosen, this, &KnowledgeBaseDock::showEntity);
    // Browsing the results with the keyboard previews each entity; the hit that a new query
    // puts on top does not (the page would be rebuilt at every key stroke).
    connect(search_, &EntitySearchBox::currentEntityChanged, this, [this](const QString& id) {
        if (search_->resultView()->hasFocus()) showEntity(id);
    });
    connect(page_, &EntityPage::mentionActivated, this, &KnowledgeBaseDock::mentionActivated);
    connect(page_, &EntityPage::entityActivated, this, &KnowledgeBaseDock::entityShown);
    connect(&watcher_, &QFutureWatcher<Built>::finished, this, &KnowledgeBaseDock::onIndexBuilt);
}

KnowledgeBaseDock::~KnowledgeBaseDock() {
    watcher_.cancel();
    watcher_.waitForFinished();
}

void KnowledgeBaseDock::setProject(std::shared_ptr<const LoadedProject> project, bool index) {
    if (watcher_.isRunning()) {
        // The worker checks for cancellation every few thousand entities: this wait is short.
        watcher_.cancel();
        watcher_.waitForFinished();
    }
    project_ = std::move(project);
    index_.reset();
    indexing_ = false;
    search_->setIndex(nullptr);
    page_->setProject(project_);
    if (index) startIndexing();
}

void KnowledgeBaseDock::startIndexing() {
    if (!project_ || !project_->kb || indexing_ || index_) return;
    indexing_ = true;
    watcher_.setFuture(QtConcurrent::run(&pool_, [project = project_](QPromise<Built>& promise) {
        lowerWorkerPriority();
        ProgressSink sink;
        sink.cancelled = [&promise] { return promise.isCanceled(); };
        QElapsedTimer timer;
        timer.start();
        try {
            auto holder = std::make_shared<const ProjectSearchIndex>(project, sink);
            promise.addResult(Built{std::shared_ptr<const kb::EntitySearchIndex>(holder, &holder->index),
                                    {},
                                    static_cast<double>(timer.nsecsElapsed()) / 1e9});
        } catch (const Cancelled&) {
            // no result: a newer project replaced this one, or the dock is going away
        } catch (const std::exception& e) {
            promise.addResult(Built{nullptr, QString::fromUtf8(e.what()), 0});
        }
    }));
}

void KnowledgeBaseDock::onIndexBuilt() {
    const QFuture<Built> future = watcher_.future();
    if (future.isCanceled() || future.resultCount() == 0) return;
    const Built built = future.result();
    indexing_ = false;
    if (!built.index) {
        Q_EMIT indexingFailed(built.error);
        return;
    }
    index_ = built.index;
    lastIndexSeconds_ = built.seconds;
    search_->setIndex(index_);
    Q_EMIT searchIndexReady();
}

bool KnowledgeBaseDock::showEntity(const QString& id) {
    if (!page_->showEntity(id)) return false;
    Q_EMIT entityShown(page_->currentId());
    return true;
}

}  // namespace linkscope::ui
