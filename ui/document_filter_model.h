#pragma once
// The Documents dock's filter: the text typed (PMID or title) and a review filter (every
// document, unreviewed ones, disagreements with the gold, low confidence, worth reviewing), over
// DocumentListModel. "Worth reviewing" keeps the documents whose best review-queue priority
// (ui/review_queue_order.h) is above 0 and sorts them by it, highest first.
#include <QSortFilterProxyModel>

#include <functional>

namespace linkscope::ui {

class DocumentFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Review { All, Unreviewed, Disagreements, LowConfidence, WorthReviewing };
    /// A source row's review priority (the best of its undecided mentions; 0: nothing to review).
    using PriorityFn = std::function<double(int sourceRow)>;

    explicit DocumentFilterModel(QObject* parent = nullptr);
    void setReviewFilter(Review review);
    Review reviewFilter() const { return review_; }
    /// A source row that passes the review filter whatever its figures: the document being
    /// curated does not vanish under the curator when its last mention is decided.
    void setPinnedRow(int sourceRow) { pinned_ = sourceRow; }
    /// What WorthReviewing reads; set again (or invalidate) when the priorities change.
    void setPriorityFunction(PriorityFn priority);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    PriorityFn priority_;
    Review review_ = Review::All;
    int pinned_ = -1;
};

}  // namespace linkscope::ui
