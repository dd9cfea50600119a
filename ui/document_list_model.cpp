#include "document_list_model.h"

#include "corpus/corpus.h"
#include "project/loaded_project.h"

namespace linkscope::ui {

DocumentListModel::DocumentListModel(QObject* parent) : QAbstractTableModel(parent) {}
DocumentListModel::~DocumentListModel() = default;

void DocumentListModel::setProject(std::shared_ptr<const LoadedProject> project) {
    beginResetModel();
    project_ = std::move(project);
    rows_.clear();
    rowOf_.clear();
    if (project_) {
        for (std::size_t s = 0; s < project_->splits.size(); ++s) {
            const auto documents = project_->splits[s].corpus.documents();
            for (std::size_t d = 0; d < documents.size(); ++d) {
                rowOf_.emplace(std::pair(project_->splits[s].split, documents[d].pmid()),
                               static_cast<int>(rows_.size()));
                rows_.push_back({static_cast<int>(s), static_cast<int>(d)});
            }
        }
    }
    reviews_.assign(rows_.size(), std::nullopt);
    endResetModel();
}

const Document* DocumentListModel::documentAt(int row) const {
    if (!project_ || row < 0 || row >= static_cast<int>(rows_.size())) return nullptr;
    const Row& r = rows_[static_cast<std::size_t>(row)];
    return &project_->splits[static_cast<std::size_t>(r.split)]
                .corpus.documents()[static_cast<std::size_t>(r.document)];
}

void DocumentListModel::setReviewFunction(ReviewFn review) {
    review_ = std::move(review);
    reviews_.assign(rows_.size(), std::nullopt);
    refreshReview();
}

void DocumentListModel::refreshReview() {
    reviews_.assign(rows_.size(), std::nullopt);
    if (rows_.empty()) return;
    Q_EMIT dataChanged(index(0, 0), index(static_cast<int>(rows_.size()) - 1, ColumnCount - 1),
                       {Qt::DisplayRole, UnreviewedRole, DisagreementRole, LowConfidenceRole});
}

void DocumentListModel::refreshReview(const std::vector<std::pair<std::string, std::string>>& documents) {
    for (const auto& document : documents) {
        const auto found = rowOf_.find(document);
        if (found == rowOf_.end()) continue;
        const int row = found->second;
        reviews_[static_cast<std::size_t>(row)].reset();
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1),
                           {Qt::DisplayRole, UnreviewedRole, DisagreementRole, LowConfidenceRole});
    }
}

DocumentListModel::Review DocumentListModel::reviewOf(int row) const {
    const Document* document = documentAt(row);
    if (!document) return {};
    if (!review_) return {static_cast<int>(document->mentions.size()), 0, 0, 0, {}, {}, false};
    std::optional<Review>& cached = reviews_[static_cast<std::size_t>(row)];
    if (!cached) {
        const Row& r = rows_[static_cast<std::size_t>(row)];
        cached = review_(project_->splits[static_cast<std::size_t>(r.split)].split, *document);
    }
    return *cached;
}

int DocumentListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int DocumentListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DocumentListModel::data(const QModelIndex& index, int role) const {
    const Document* document = documentAt(index.row());
    if (!document || !index.isValid()) return {};
    const Row& r = rows_[static_cast<std::size_t>(index.row())];
    if (role == SplitIndexRole) return r.split;
    if (role == DocumentIndexRole) return r.document;
    if (role == UnreviewedRole || role == DisagreementRole || role == LowConfidenceRole) {
        const Review review = reviewOf(index.row());
        if (role == UnreviewedRole) return review.reviewed < review.mentions;
        if (role == DisagreementRole) return review.disagreements > 0;
        return review.lowConfidence > 0;
    }
    if (role == Qt::ToolTipRole && index.column() == ReviewedColumn) {
        const Review review = reviewOf(index.row());
        QString tip =
            tr("%1 of %2 mentions reviewed; %3 linked differently from the gold; %4 unreviewed of low confidence")
                .arg(review.reviewed)
                .arg(review.mentions)
                .arg(review.disagreements)
                .arg(review.lowConfidence);
        if (!review.decidedBy.isEmpty()) tip += tr("; decided by %1").arg(review.decidedBy);
        if (!review.teamNote.isEmpty()) tip += QStringLiteral("; ") + review.teamNote;
        return tip;
    }
    if (role == Qt::TextAlignmentRole && (index.column() == MentionsColumn || index.column() == ReviewedColumn))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == TitleColumn) return QString::fromStdString(document->title);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case SplitColumn:
            return QString::fromStdString(project_->splits[static_cast<std::size_t>(r.split)].split);
        case PmidColumn:
            return QString::fromStdString(document->pmid());
        case TitleColumn:
            return QString::fromStdString(document->title);
        case MentionsColumn:
            return static_cast<int>(document->mentions.size());
        case ReviewedColumn: {
            const Review review = reviewOf(index.row());
            const QString reviewed = QStringLiteral("%1/%2").arg(review.reviewed).arg(review.mentions);
            // The blind mode's overlap documents are marked where the curator looks.
            return review.overlap ? tr("%1 (overlap)").arg(reviewed) : reviewed;
        }
        default:
            return {};
    }
}

QVariant DocumentListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case SplitColumn:
            return tr("Split");
        case PmidColumn:
            return tr("PMID");
        case TitleColumn:
            return tr("Title");
        case MentionsColumn:
            return tr("Mentions");
        case ReviewedColumn:
            return tr("Reviewed");
        default:
            return {};
    }
}

}  // namespace linkscope::ui
