#pragma once
// The Documents dock's filter: the text typed (PMID or title) and a review filter (every
// document, unreviewed ones, disagreements with the gold, low confidence), over DocumentListModel.
#include <QSortFilterProxyModel>

namespace linkscope::ui {

class DocumentFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Review { All, Unreviewed, Disagreements, LowConfidence };

    explicit DocumentFilterModel(QObject* parent = nullptr);
    void setReviewFilter(Review review);
    Review reviewFilter() const { return review_; }
    /// A source row that passes the review filter whatever its figures: the document being
    /// curated does not vanish under the curator when its last mention is decided.
    void setPinnedRow(int sourceRow) { pinned_ = sourceRow; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    Review review_ = Review::All;
    int pinned_ = -1;
};

}  // namespace linkscope::ui
