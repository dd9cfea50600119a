#include "document_filter_model.h"

#include "document_list_model.h"

namespace linkscope::ui {

DocumentFilterModel::DocumentFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
    // The review roles change with every decision: re-filter then (a decided document leaves
    // the "unreviewed" list at once).
    setDynamicSortFilter(true);
}

void DocumentFilterModel::setReviewFilter(Review review) {
    if (review == review_) return;
    const bool wasQueue = review_ == Review::WorthReviewing;
    review_ = review;
    invalidateFilter();
    // Worth reviewing lists the most worthwhile document first; leaving it, file order again.
    if (review_ == Review::WorthReviewing)
        sort(0, Qt::AscendingOrder);
    else if (wasQueue)
        sort(-1);
}

void DocumentFilterModel::setPriorityFunction(PriorityFn priority) {
    priority_ = std::move(priority);
    if (review_ != Review::WorthReviewing) return;
    invalidate();
    sort(0, Qt::AscendingOrder);
}

bool DocumentFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    if (review_ == Review::WorthReviewing && priority_) {
        const double a = priority_(left.row()), b = priority_(right.row());
        if (a != b) return a > b;  // "less" = earlier: the higher priority first
        return left.row() < right.row();
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

bool DocumentFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (review_ == Review::WorthReviewing && sourceRow != pinned_) {
        if (!priority_ || priority_(sourceRow) <= 0.0) return false;
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    }
    if (review_ != Review::All && sourceRow != pinned_) {
        const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
        const int role = review_ == Review::Unreviewed      ? DocumentListModel::UnreviewedRole
                         : review_ == Review::Disagreements ? DocumentListModel::DisagreementRole
                                                            : DocumentListModel::LowConfidenceRole;
        if (!index.data(role).toBool()) return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

}  // namespace linkscope::ui
