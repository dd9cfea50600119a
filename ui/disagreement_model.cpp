#include "disagreement_model.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

QString text(const std::string& value) { return QString::fromStdString(value); }

const Mention* findMention(const LoadedProject* project, const project::MentionKey& key) {
    if (!project) return nullptr;
    for (const SplitCorpus& split : project->splits) {
        if (split.split != key.split) continue;
        const Document* document = split.corpus.find(key.document);
        if (!document) continue;
        for (const Mention& mention : document->mentions)
            if (mention.start == key.start && mention.end == key.end) return &mention;
    }
    return nullptr;
}

std::string goldOf(const Mention& mention) {
    if (mention.ids.cuiLess || mention.ids.ids.empty()) return "-1";
    std::string gold;
    for (const auto& id : mention.ids.ids) gold += (gold.empty() ? "" : "|") + id;
    return gold;
}

}  // namespace

QString describeLink(const project::Decision& decision) {
    switch (decision.kind) {
        case project::DecisionKind::Reject:
            return QObject::tr("rejected");
        case project::DecisionKind::Nil:
            return QObject::tr("NIL (-1)");
        case project::DecisionKind::Skip:
            return QObject::tr("skip");
        case project::DecisionKind::Accept:
        case project::DecisionKind::Correct:
            break;
    }
    return text(decision.newLink);
}

DisagreementModel::DisagreementModel(QObject* parent) : QAbstractTableModel(parent) {}

void DisagreementModel::setProject(const LoadedProject* project) {
    project_ = project;
    rebuild();
}

void DisagreementModel::setProposalFunction(std::function<std::string(const project::MentionKey&)> proposal) {
    proposal_ = std::move(proposal);
}

void DisagreementModel::setDecisions(const std::vector<project::Decision>& done, const std::string& a,
                                     const std::string& b) {
    a_ = a;
    b_ = b;
    all_ = (a.empty() || b.empty() || a == b) ? std::vector<curation::Disagreement>{}
                                              : curation::findDisagreements(done, a, b);
    rebuild();
}

void DisagreementModel::setFilter(const std::string& split, const std::string& type) {
    split_ = split;
    type_ = type;
    rebuild();
}

void DisagreementModel::rebuild() {
    beginResetModel();
    rows_.clear();
    for (const curation::Disagreement& disagreement : all_) {
        Row row;
        row.disagreement = disagreement;
        row.mention = findMention(project_, disagreement.mention);
        if (row.mention) {
            row.type = row.mention->type;
            row.gold = goldOf(*row.mention);
        }
        if (!split_.empty() && disagreement.mention.split != split_) continue;
        if (!type_.empty() && row.type != type_) continue;
        if (proposal_) row.proposal = proposal_(disagreement.mention);
        rows_.push_back(std::move(row));
    }
    endResetModel();
}

int DisagreementModel::rowOf(const project::MentionKey& key) const {
    const auto found =
        std::find_if(rows_.begin(), rows_.end(), [&](const Row& row) { return row.disagreement.mention == key; });
    return found == rows_.end() ? -1 : static_cast<int>(found - rows_.begin());
}

int DisagreementModel::openCount() const {
    return static_cast<int>(
        std::count_if(rows_.begin(), rows_.end(), [](const Row& row) { return !row.disagreement.settled(); }));
}

int DisagreementModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int DisagreementModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DisagreementModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const curation::Disagreement& d = row.disagreement;
    if (role == SettledRole) return d.settled();
    if (role == Qt::BackgroundRole && index.column() == AdjudicatedColumn && d.settled())
        return QBrush(QColor(0xd8, 0xf0, 0xd8));  // settled: the light green of an accepted mention
    if (role == Qt::ToolTipRole && (index.column() == LinkAColumn || index.column() == LinkBColumn)) {
        const auto found = d.byCurator.find(index.column() == LinkAColumn ? a_ : b_);
        if (found == d.byCurator.end()) return {};
        return tr("%1 by %2 at %3")
            .arg(text(std::string(project::decisionKindName(found->second.kind))), text(found->second.curator),
                 text(found->second.timestamp));
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case SplitColumn:
            return text(d.mention.split);
        case DocumentColumn:
            return text(d.mention.document);
        case MentionColumn:
            return text(d.mentionText);
        case TypeColumn:
            return text(row.type);
        case LinkAColumn:
        case LinkBColumn: {
            const auto found = d.byCurator.find(index.column() == LinkAColumn ? a_ : b_);
            return found == d.byCurator.end() ? QVariant() : describeLink(found->second);
        }
        case GoldColumn:
            return text(row.gold);
        case ProposalColumn:
            return text(row.proposal);
        case AdjudicatedColumn:
            return d.settled() ? describeLink(*d.adjudication) : QString();
        default:
            return {};
    }
}

QVariant DisagreementModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
        case SplitColumn:
            return tr("Split");
        case DocumentColumn:
            return tr("Document");
        case MentionColumn:
            return tr("Mention");
        case TypeColumn:
            return tr("Type");
        case LinkAColumn:
            return a_.empty() ? tr("Curator A") : text(a_);
        case LinkBColumn:
            return b_.empty() ? tr("Curator B") : text(b_);
        case GoldColumn:
            return tr("Gold");
        case ProposalColumn:
            return tr("Proposal");
        case AdjudicatedColumn:
            return tr("Adjudicated");
        default:
            return {};
    }
}

}  // namespace linkscope::ui
