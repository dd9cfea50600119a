#include "knowledge_base_dock.h"

#include <QElapsedTimer>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include "entity_page.h"
#include "entity_search_box.h"
#include "kb/entity_search.h"
#include "project/loaded_project.h"
#include "util/progress.h"

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
    connect(&indexer_, &BackgroundJob::failed, this, [this](const QString& message) {
        indexing_ = false;
        Q_EMIT indexingFailed(message);
    });
}

void KnowledgeBaseDock::setProject(std::shared_ptr<const LoadedProject> project, bool index) {
    // The worker checks for cancellation every few thousand entities: a new build waits briefly
    // for it on the indexer's thread.
    indexer_.cancel();
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
    indexer_.start(
        [project = project_](const JobContext& context) {
            ProgressSink sink;
            sink.cancelled = [&context] { return context.isCancelled(); };
            QElapsedTimer timer;
            timer.start();
            auto holder = std::make_shared<const ProjectSearchIndex>(project, sink);
            return Built{std::shared_ptr<const kb::EntitySearchIndex>(holder, &holder->index),
                         static_cast<double>(timer.nsecsElapsed()) / 1e9};
        },
        [this](const Built& built) { onIndexBuilt(built); });
}

void KnowledgeBaseDock::onIndexBuilt(const Built& built) {
    indexing_ = false;
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
