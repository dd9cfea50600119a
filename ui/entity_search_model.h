#pragma once
// The hits of an entity search as a table (id, matched name, preferred name, semantic types),
// for the search boxes of the knowledge-base dock and the candidates panel. The model runs the
// search itself: search(text) replaces the rows. It is fast enough for the GUI thread (well
// under 100 ms on MEDIC, see benchmarks/kb_search).
#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "kb/entity_search.h"

namespace linkscope::ui {

class EntitySearchModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IdColumn, MatchedNameColumn, PreferredNameColumn, SemanticTypesColumn, ColumnCount };
    enum Role {
        CanonicalIdRole = Qt::UserRole + 1,  ///< QString, the entity's primary id
        EntityIndexRole,                     ///< int, the entity's index in the KB
        MatchKindRole,                       ///< int, a kb::SearchMatch
    };

    explicit EntitySearchModel(QObject* parent = nullptr);
    ~EntitySearchModel() override;

    /// The index to search; it must keep its knowledge base alive (see KnowledgeBaseDock, which
    /// hands out an index that shares ownership of the project). Null clears the model.
    void setIndex(std::shared_ptr<const kb::EntitySearchIndex> index);
    const std::shared_ptr<const kb::EntitySearchIndex>& searchIndex() const { return index_; }
    /// Hits per search (default 50).
    void setLimit(int limit);
    int limit() const { return limit_; }

    /// Replaces the rows by the hits for `text`; returns the search time in milliseconds.
    double search(const QString& text);
    const QString& query() const { return query_; }

    /// The hit behind a row, or nullptr.
    const kb::EntitySearchHit* hitAt(int row) const;
    QString canonicalIdAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const kb::EntitySearchIndex> index_;
    std::vector<kb::EntitySearchHit> hits_;
    QString query_;
    int limit_ = 50;
};

}  // namespace linkscope::ui
