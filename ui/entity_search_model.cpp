#include "entity_search_model.h"

#include <QElapsedTimer>
#include <QFont>
#include <QStringList>

#include "util/error.h"

namespace linkscope::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString semanticTypesOf(const kb::KnowledgeBase& kb, kb::EntityIndex entity) {
    QStringList types;
    for (const kb::SemanticTypeView& type : kb.semanticTypes(entity))
        types << (type.id.empty() ? qs(type.name) : QStringLiteral("%1 %2").arg(qs(type.id), qs(type.name)));
    return types.join(QStringLiteral("; "));
}

QString matchDescription(kb::SearchMatch match) {
    switch (match) {
        case kb::SearchMatch::ExactId:
            return EntitySearchModel::tr("the identifier");
        case kb::SearchMatch::ExactName:
            return EntitySearchModel::tr("a name, exactly");
        case kb::SearchMatch::NamePrefix:
            return EntitySearchModel::tr("the start of a name");
        case kb::SearchMatch::IdPrefix:
            return EntitySearchModel::tr("the start of an identifier");
        case kb::SearchMatch::WordPrefix:
            return EntitySearchModel::tr("the start of words of a name");
        case kb::SearchMatch::Substring:
            return EntitySearchModel::tr("part of a name");
    }
    return {};
}

}  // namespace

EntitySearchModel::EntitySearchModel(QObject* parent) : QAbstractTableModel(parent) {}
EntitySearchModel::~EntitySearchModel() = default;

void EntitySearchModel::setIndex(std::shared_ptr<const kb::EntitySearchIndex> index) {
    beginResetModel();
    index_ = std::move(index);
    hits_.clear();
    endResetModel();
    if (index_ && !query_.isEmpty()) search(query_);
}

void EntitySearchModel::setLimit(int limit) { limit_ = std::max(1, limit); }

double EntitySearchModel::search(const QString& text) {
    QElapsedTimer timer;
    timer.start();
    std::vector<kb::EntitySearchHit> hits;
    if (index_) {
        try {
            hits = index_->search(text.toStdString(), static_cast<std::size_t>(limit_));
        } catch (const Error&) {
            // QString always converts to valid UTF-8; nothing else can fail. Show no hits.
        }
    }
    beginResetModel();
    query_ = text;
    hits_ = std::move(hits);
    endResetModel();
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

const kb::EntitySearchHit* EntitySearchModel::hitAt(int row) const {
    if (row < 0 || row >= static_cast<int>(hits_.size())) return nullptr;
    return &hits_[static_cast<std::size_t>(row)];
}

QString EntitySearchModel::canonicalIdAt(int row) const {
    const kb::EntitySearchHit* hit = hitAt(row);
    return hit ? qs(index_->knowledgeBase().primaryId(hit->entity)) : QString();
}

int EntitySearchModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(hits_.size());
}

int EntitySearchModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EntitySearchModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.parent().isValid()) return {};
    const kb::EntitySearchHit* hit = hitAt(index.row());
    if (!hit) return {};
    const kb::KnowledgeBase& kb = index_->knowledgeBase();
    switch (role) {
        case CanonicalIdRole:
            return qs(kb.primaryId(hit->entity));
        case EntityIndexRole:
            return static_cast<int>(hit->entity);
        case MatchKindRole:
            return static_cast<int>(hit->match);
        case Qt::ToolTipRole:
            return tr("%1 — %2<br>The query matched %3: <i>%4</i>%5")
                .arg(qs(kb.primaryId(hit->entity)).toHtmlEscaped(), qs(kb.preferredName(hit->entity)).toHtmlEscaped(),
                     matchDescription(hit->match), qs(hit->text).toHtmlEscaped(),
                     hit->expandedName ? tr(" (a homonym, expanded)") : QString());
        case Qt::DisplayRole:
            switch (index.column()) {
                case IdColumn:
                    return qs(kb.primaryId(hit->entity));
                case MatchedNameColumn:
                    return qs(hit->text);
                case PreferredNameColumn:
                    return qs(kb.preferredName(hit->entity));
                case SemanticTypesColumn:
                    return semanticTypesOf(kb, hit->entity);
                default:
                    return {};
            }
        case Qt::FontRole:
            if (index.column() == MatchedNameColumn && hit->preferredName) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            if (index.column() == MatchedNameColumn && hit->expandedName) {
                QFont italic;
                italic.setItalic(true);
                return italic;
            }
            return {};
        default:
            return {};
    }
}

QVariant EntitySearchModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case IdColumn:
            return tr("Id");
        case MatchedNameColumn:
            return tr("Matched name");
        case PreferredNameColumn:
            return tr("Preferred name");
        case SemanticTypesColumn:
            return tr("Semantic types");
        default:
            return {};
    }
}

}  // namespace linkscope::ui
