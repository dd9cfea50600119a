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
    if (project_) {
        for (std::size_t s = 0; s < project_->splits.size(); ++s) {
            const auto documents = project_->splits[s].corpus.documents();
            for (std::size_t d = 0; d < documents.size(); ++d)
                rows_.push_back({static_cast<int>(s), static_cast<int>(d)});
        }
    }
    endResetModel();
}

const Document* DocumentListModel::documentAt(int row) const {
    if (!project_ || row < 0 || row >= static_cast<int>(rows_.size())) return nullptr;
    const Row& r = rows_[static_cast<std::size_t>(row)];
    return &project_->splits[static_cast<std::size_t>(r.split)].corpus.documents()[static_cast<std::size_t>(r.document)];
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
    if (role == Qt::TextAlignmentRole && index.column() == MentionsColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == TitleColumn) return QString::fromStdString(document->title);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case SplitColumn: return QString::fromStdString(project_->splits[static_cast<std::size_t>(r.split)].split);
    case PmidColumn: return QString::fromStdString(document->pmid());
    case TitleColumn: return QString::fromStdString(document->title);
    case MentionsColumn: return static_cast<int>(document->mentions.size());
    default: return {};
    }
}

QVariant DocumentListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SplitColumn: return tr("Split");
    case PmidColumn: return tr("PMID");
    case TitleColumn: return tr("Title");
    case MentionsColumn: return tr("Mentions");
    default: return {};
    }
}

}  // namespace linkscope::ui
