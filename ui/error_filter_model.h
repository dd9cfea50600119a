#pragma once
// Filters the error list (error_table_model.h): only wrong top predictions unless asked
// otherwise, only rows with at least one of the chosen categories when some are chosen, and a
// free-text filter on the mention, document, gold and predicted columns. Sorts by the rank as
// a number in the rank column.
#include <QSortFilterProxyModel>

#include "eval/error_categories.h"

namespace linkscope::ui {

class ErrorFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit ErrorFilterModel(QObject* parent = nullptr);

    /// Rows must carry at least one of these; an empty set keeps every row.
    void setCategories(eval::ErrorCategories categories);
    eval::ErrorCategories categories() const { return categories_; }
    /// Also list mentions whose top prediction is correct (default: errors only).
    void setShowCorrect(bool show);
    bool showCorrect() const { return showCorrect_; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    eval::ErrorCategories categories_;
    bool showCorrect_ = false;
};

}  // namespace linkscope::ui
