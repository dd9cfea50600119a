#pragma once
// The documents of a loaded project as a table (split, PMID, title, mentions), for the
// Documents dock. It reads the project's corpora in place; nothing is copied.
#include <QAbstractTableModel>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace linkscope {
struct LoadedProject;
class Document;
}  // namespace linkscope

namespace linkscope::ui {

class DocumentListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SplitColumn, PmidColumn, TitleColumn, MentionsColumn, ReviewedColumn, ColumnCount };
    enum Role {
        SplitIndexRole = Qt::UserRole + 1,
        DocumentIndexRole,
        UnreviewedRole,     ///< bool: some mention has no decision
        DisagreementRole,   ///< bool: some mention's link in effect differs from its gold
        LowConfidenceRole,  ///< bool: some undecided mention's proposal is of low confidence
    };
    /// Review figures of a document, from the curation (see reviewDocument, document_review.h).
    struct Review {
        int mentions = 0;
        int reviewed = 0;
        int disagreements = 0;
        int lowConfidence = 0;
        QString decidedBy;     ///< who made the decisions in effect ("ann (3), bob (1)"); empty for none
        QString teamNote;      ///< a team project: the blind overlap mark, others' claims; empty for none
        bool overlap = false;  ///< blind mode: the document is given to two curators
    };
    using ReviewFn = std::function<Review(const std::string& split, const Document& document)>;

    explicit DocumentListModel(QObject* parent = nullptr);
    ~DocumentListModel() override;

    void setProject(std::shared_ptr<const LoadedProject> project);
    /// Where the review figures come from (none: every mention counts as unreviewed).
    void setReviewFunction(ReviewFn review);
    /// The figures of every document changed (the proposals arrived, another ranker): the
    /// review column and roles, recomputed when next read.
    void refreshReview();
    /// Only these documents' figures changed (split name, PMID): a decision, a re-ranking. On
    /// NCBI Disease recomputing all 2,541 documents takes tens of milliseconds per decision.
    void refreshReview(const std::vector<std::pair<std::string, std::string>>& documents);
    /// The document behind a row, or nullptr.
    const Document* documentAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    Review reviewOf(int row) const;

    struct Row {
        int split;
        int document;
    };
    std::shared_ptr<const LoadedProject> project_;
    std::vector<Row> rows_;
    std::map<std::pair<std::string, std::string>, int> rowOf_;  ///< (split, PMID) -> row
    ReviewFn review_;
    mutable std::vector<std::optional<Review>> reviews_;  ///< per row, computed when first read
};

}  // namespace linkscope::ui
