#pragma once
// The knowledge-base dock's content: an entity search box with its results above the page of
// the chosen entity (a vertical QSplitter). Setting a project builds the search index on a
// worker thread (the box is disabled meanwhile); the index is then shared with whoever else
// needs an entity search (the candidates panel).
#include <QWidget>

#include <memory>

#include "background_job.h"

class QSplitter;

namespace linkscope {
struct LoadedProject;
}
namespace linkscope::kb {
class EntitySearchIndex;
}

namespace linkscope::ui {

class EntityPage;
class EntitySearchBox;

class KnowledgeBaseDock : public QWidget {
    Q_OBJECT
public:
    explicit KnowledgeBaseDock(QWidget* parent = nullptr);

    /// Shows a project's KB (null: none) and starts indexing it for search, or, with `index`
    /// false, leaves that to startIndexing() (the main window builds the candidate ranker first).
    void setProject(std::shared_ptr<const LoadedProject> project, bool index = true);
    /// Starts indexing the project's KB for search, unless it is indexed or being indexed.
    void startIndexing();
    /// The search index of the current project once built, else null. It shares ownership of
    /// the project, so hits stay valid as long as the pointer is held.
    std::shared_ptr<const kb::EntitySearchIndex> searchIndex() const { return index_; }
    bool isIndexing() const { return indexing_; }
    /// Seconds the last index build took (0 before the first).
    double lastIndexSeconds() const { return lastIndexSeconds_; }

    EntitySearchBox* searchBox() const { return search_; }
    EntityPage* entityPage() const { return page_; }

public Q_SLOTS:
    /// Shows the entity with this id on the page (primary or alternative id).
    bool showEntity(const QString& id);

Q_SIGNALS:
    /// The search index of the current project is ready (searchIndex() returns it).
    void searchIndexReady();
    void indexingFailed(const QString& message);
    /// A mention link of the entity page was clicked (offsets in characters of title + " " + abstract).
    void mentionActivated(const QString& split, const QString& pmid, int start, int end);
    /// The page now shows this entity.
    void entityShown(const QString& canonicalId);

private:
    struct Built {
        std::shared_ptr<const kb::EntitySearchIndex> index;
        double seconds = 0;
    };
    void onIndexBuilt(const Built& built);

    std::shared_ptr<const LoadedProject> project_;
    std::shared_ptr<const kb::EntitySearchIndex> index_;
    BackgroundJob indexer_;
    double lastIndexSeconds_ = 0;
    bool indexing_ = false;  ///< from setProject() until the build's result reached this thread
    QSplitter* splitter_ = nullptr;
    EntitySearchBox* search_ = nullptr;
    EntityPage* page_ = nullptr;
};

}  // namespace linkscope::ui
