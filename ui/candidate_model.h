#pragma once
// The ranked candidates of the selected mention, as a table: rank, entity, the name that matched
// (homonym-expanded), the KB's preferred name and semantic types, the total score and its parts,
// and whether the entity is the mention's gold or its link in effect.
#include <QAbstractTableModel>

#include <string>
#include <vector>

#include "curation/candidate_row.h"

namespace linkscope {
namespace kb {
class KnowledgeBase;
}
struct Mention;
}  // namespace linkscope

namespace linkscope::ui {

class CandidateModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        EntityColumn,
        MatchedNameColumn,
        PreferredNameColumn,
        TypeColumn,
        ScoreColumn,
        SparseColumn,
        DenseColumn,
        KnnColumn,
        SieveColumn,
        GoldColumn,
        ColumnCount
    };
    enum Role { EntityIdRole = Qt::UserRole + 1, IsGoldRole, IsCurrentRole };

    explicit CandidateModel(QObject* parent = nullptr);

    /// Replaces the rows. kb must outlive the model's use of these rows (the project holds it).
    void setCandidates(std::vector<curation::CandidateRow> rows, const kb::KnowledgeBase* kb,
                       std::vector<std::string> gold, std::string current);
    void clear();
    const curation::CandidateRow* rowAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool isGold(const std::string& entity) const;

    std::vector<curation::CandidateRow> rows_;
    const kb::KnowledgeBase* kb_ = nullptr;
    std::vector<std::string> gold_;
    std::string current_;
};

}  // namespace linkscope::ui
