#include "error_table_model.h"

#include <QStringList>

#include "evaluation_run.h"

namespace linkscope::ui {
namespace {

QString joined(const std::vector<std::string>& ids) {
    QStringList parts;
    for (const auto& id : ids) parts << QString::fromStdString(id);
    return parts.join(QLatin1Char('|'));
}

}  // namespace

ErrorTableModel::ErrorTableModel(QObject* parent) : QAbstractTableModel(parent) {}
ErrorTableModel::~ErrorTableModel() = default;

void ErrorTableModel::setRun(std::shared_ptr<const EvaluationRun> run) {
    beginResetModel();
    run_ = std::move(run);
    endResetModel();
}

int ErrorTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !run_) return 0;
    return static_cast<int>(run_->mentions.size());
}

int ErrorTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ErrorTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !run_) return {};
    const EvaluatedMention& m = run_->mentions[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case MentionColumn:
                    return QString::fromStdString(m.mention);
                case DocumentColumn:
                    return QString::fromStdString(m.document);
                case GoldColumn:
                    return joined(m.gold);
                case PredictedColumn:
                    return m.predictedIds.empty()
                               ? tr("(none)")
                               : QStringLiteral("%1 [%2]").arg(QString::fromStdString(m.predictedName),
                                                               joined(m.predictedIds));
                case RankColumn:
                    return m.rank == 0 ? tr("> %1").arg(run_->result.depth) : QString::number(m.rank);
                case CategoriesColumn:
                    return QString::fromStdString(eval::describe(m.categories));
                default:
                    return {};
            }
        case Qt::ToolTipRole:
            return tr("%1 · PMID %2 · characters %3–%4")
                .arg(m.split.empty() ? tr("split unknown") : QString::fromStdString(m.split),
                     QString::fromStdString(m.document))
                .arg(m.start)
                .arg(m.end);
        case CategoriesRole:
            return static_cast<uint>(m.categories.bits());
        case CorrectRole:
            return m.correct();
        case SplitRole:
            return QString::fromStdString(m.split);
        case DocumentRole:
            return QString::fromStdString(m.document);
        case StartRole:
            return static_cast<int>(m.start);
        case EndRole:
            return static_cast<int>(m.end);
        case SortRole:
            if (index.column() == RankColumn)
                return m.rank == 0 ? static_cast<qulonglong>(run_->result.depth) + 1 : static_cast<qulonglong>(m.rank);
            return data(index, Qt::DisplayRole);
        default:
            return {};
    }
}

QVariant ErrorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case MentionColumn:
            return tr("Mention");
        case DocumentColumn:
            return tr("Document");
        case GoldColumn:
            return tr("Gold");
        case PredictedColumn:
            return tr("Predicted");
        case RankColumn:
            return tr("Rank");
        case CategoriesColumn:
            return tr("Categories");
        default:
            return {};
    }
}

}  // namespace linkscope::ui
