#pragma once
// The evaluation dock's error list: one row per evaluated mention of a run (all of them; the
// proxy, error_filter_model.h, keeps the wrong ones and the chosen categories), with columns
// mention, document, gold, predicted, rank and categories.
#include <QAbstractTableModel>

#include <memory>

namespace linkscope::ui {

struct EvaluationRun;

class ErrorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        MentionColumn,
        DocumentColumn,
        GoldColumn,
        PredictedColumn,
        RankColumn,
        CategoriesColumn,
        ColumnCount
    };
    enum Role {
        /// eval::ErrorCategories::bits() of the row (uint).
        CategoriesRole = Qt::UserRole + 1,
        /// true when the top prediction is correct (lenient).
        CorrectRole,
        SplitRole,     ///< QString
        DocumentRole,  ///< QString (PMID)
        StartRole,     ///< int, character offset
        EndRole,       ///< int
        /// The rank as a number for sorting; mentions not found within the depth sort last.
        SortRole,
    };

    explicit ErrorTableModel(QObject* parent = nullptr);
    ~ErrorTableModel() override;

    /// Shows a run's mentions (null: none). The model shares the run.
    void setRun(std::shared_ptr<const EvaluationRun> run);
    const EvaluationRun* run() const { return run_.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const EvaluationRun> run_;
};

}  // namespace linkscope::ui
