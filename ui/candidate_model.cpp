#include "candidate_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>

#include "kb/knowledge_base.h"

namespace linkscope::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

template <class T>
QVariant optionalNumber(const std::optional<T>& value, int decimals) {
    if (!value) return {};
    return QString::number(static_cast<double>(*value), 'f', decimals);
}

}  // namespace

CandidateModel::CandidateModel(QObject* parent) : QAbstractTableModel(parent) {}

void CandidateModel::setCandidates(std::vector<curation::CandidateRow> rows, const kb::KnowledgeBase* kb,
                                   std::vector<std::string> gold, std::string current) {
    beginResetModel();
    rows_ = std::move(rows);
    kb_ = kb;
    gold_ = std::move(gold);
    current_ = std::move(current);
    endResetModel();
}

void CandidateModel::clear() { setCandidates({}, nullptr, {}, {}); }

const curation::CandidateRow* CandidateModel::rowAt(int row) const {
    if (row < 0 || row >= static_cast<int>(rows_.size())) return nullptr;
    return &rows_[static_cast<std::size_t>(row)];
}

bool CandidateModel::isGold(const std::string& entity) const {
    return std::find(gold_.begin(), gold_.end(), entity) != gold_.end();
}

int CandidateModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CandidateModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CandidateModel::data(const QModelIndex& index, int role) const {
    const curation::CandidateRow* row = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!row) return {};
    // findById lists the entity holding the id as primary first (a span: no optional, whose
    // use here trips GCC's -Wmaybe-uninitialized).
    const std::span<const kb::EntityIndex> entities =
        kb_ ? kb_->findById(row->entity) : std::span<const kb::EntityIndex>();
    switch (role) {
        case EntityIdRole:
            return qs(row->entity);
        case IsGoldRole:
            return isGold(row->entity);
        case IsCurrentRole:
            return row->entity == current_;
        case Qt::FontRole:
            if (row->entity == current_) {
                QFont font;
                font.setBold(true);
                return font;
            }
            return {};
        case Qt::BackgroundRole:
            if (isGold(row->entity)) return QBrush(QColor(0xd8, 0xf0, 0xd0));
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == RankColumn || (index.column() >= ScoreColumn && index.column() <= SieveColumn))
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        case Qt::ToolTipRole:
            if (index.column() == MatchedNameColumn && row->sharedName)
                return tr("This name also names other entities (an unresolved homonym).");
            if (index.column() == GoldColumn && isGold(row->entity))
                return tr("The corpus links the mention to this entity.");
            return {};
        case Qt::DisplayRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case RankColumn:
            return index.row() + 1;
        case EntityColumn:
            return qs(row->entity);
        case MatchedNameColumn:
            return row->sharedName ? qs(row->matchedName) + QStringLiteral(" ⚠") : qs(row->matchedName);
        case PreferredNameColumn:
            return entities.empty() ? tr("(not in the KB)") : qs(kb_->preferredName(entities.front()));
        case TypeColumn: {
            if (entities.empty()) return {};
            QStringList types;
            for (const kb::SemanticTypeView& type : kb_->semanticTypes(entities.front()))
                types << (type.name.empty() ? qs(type.id) : qs(type.name));
            return types.join(QStringLiteral(", "));
        }
        case ScoreColumn:
            return QString::number(row->score, 'f', 4);
        case SparseColumn:
            return optionalNumber(row->sparse, 4);
        case DenseColumn:
            return optionalNumber(row->dense, 4);
        case KnnColumn:
            return optionalNumber(row->knnProbability, 4);
        case SieveColumn:
            return row->sieveStage ? QVariant(*row->sieveStage) : QVariant();
        case GoldColumn:
            return isGold(row->entity) ? QStringLiteral("✓") : QString();
        default:
            return {};
    }
}

QVariant CandidateModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case RankColumn:
            return tr("#");
        case EntityColumn:
            return tr("Entity");
        case MatchedNameColumn:
            return tr("Matched name");
        case PreferredNameColumn:
            return tr("Preferred name");
        case TypeColumn:
            return tr("Type");
        case ScoreColumn:
            return tr("Score");
        case SparseColumn:
            return tr("Sparse");
        case DenseColumn:
            return tr("Dense");
        case KnnColumn:
            return tr("kNN");
        case SieveColumn:
            return tr("Sieve");
        case GoldColumn:
            return tr("Gold");
        default:
            return {};
    }
}

}  // namespace linkscope::ui
