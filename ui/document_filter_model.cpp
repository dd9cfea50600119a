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
    review_ = review;
    invalidateFilter();
}

bool DocumentFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
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
