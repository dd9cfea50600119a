#include "error_filter_model.h"

#include "error_table_model.h"

namespace linkscope::ui {

ErrorFilterModel::ErrorFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortRole(ErrorTableModel::SortRole);
}

void ErrorFilterModel::setCategories(eval::ErrorCategories categories) {
    if (categories == categories_) return;
    categories_ = categories;
    invalidateRowsFilter();
}

void ErrorFilterModel::setShowCorrect(bool show) {
    if (show == showCorrect_) return;
    showCorrect_ = show;
    invalidateRowsFilter();
}

bool ErrorFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QModelIndex row = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!showCorrect_ && row.data(ErrorTableModel::CorrectRole).toBool()) return false;
    if (!categories_.empty()) {
        const auto rowCategories = eval::ErrorCategories::fromBits(row.data(ErrorTableModel::CategoriesRole).toUInt());
        if (!rowCategories.intersects(categories_)) return false;
    }
    const QRegularExpression pattern = filterRegularExpression();
    if (pattern.pattern().isEmpty()) return true;
    for (const int column : {ErrorTableModel::MentionColumn, ErrorTableModel::DocumentColumn,
                             ErrorTableModel::GoldColumn, ErrorTableModel::PredictedColumn})
        if (sourceModel()->index(sourceRow, column, sourceParent).data().toString().contains(pattern)) return true;
    return false;
}

bool ErrorFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant a = left.data(ErrorTableModel::SortRole);
    const QVariant b = right.data(ErrorTableModel::SortRole);
    if (a.typeId() == QMetaType::ULongLong && b.typeId() == QMetaType::ULongLong)
        return a.toULongLong() < b.toULongLong();
    return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
}

}  // namespace linkscope::ui
