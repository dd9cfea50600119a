#pragma once
// The adjudication view's table: the mentions on which two curators decided differently
// (core/curation/adjudication.h), one row each, with both decisions side by side, the gold ids
// and the ranker's proposal when known, and the adjudicated link once there is one. Filtered by
// split and by mention type. Rebuilt from the decisions in effect (setDecisions).
#include <QAbstractTableModel>
#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "curation/adjudication.h"

namespace linkscope {
struct LoadedProject;
struct Mention;
}  // namespace linkscope

namespace linkscope::ui {

class DisagreementModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SplitColumn,
        DocumentColumn,
        MentionColumn,
        TypeColumn,
        LinkAColumn,  ///< curator A's link (its kind when reject / nil)
        LinkBColumn,
        GoldColumn,
        ProposalColumn,
        AdjudicatedColumn,  ///< the adjudicated link, "" while the disagreement is open
        ColumnCount
    };
    /// A row's data for tests and the dialog: 1 when the disagreement is settled.
    static constexpr int SettledRole = Qt::UserRole + 1;

    struct Row {
        curation::Disagreement disagreement;
        std::string type;
        std::string gold;                  ///< the corpus ids joined by '|', "-1" for CUI-less, "" when unknown
        std::string proposal;              ///< the ranker's top entity, "" when not known (yet)
        const Mention* mention = nullptr;  ///< owned by the project; null when the corpus lacks it
    };

    explicit DisagreementModel(QObject* parent = nullptr);

    /// The project the mentions live in (gold ids, types); kept alive by the caller.
    void setProject(const LoadedProject* project);
    /// Where the proposals come from (the session's ranker); may be empty.
    void setProposalFunction(std::function<std::string(const project::MentionKey&)> proposal);
    /// Rebuilds the rows from the decisions in effect for the curators `a` and `b`.
    void setDecisions(const std::vector<project::Decision>& done, const std::string& a, const std::string& b);
    /// "" : every split / type.
    void setFilter(const std::string& split, const std::string& type);

    const Row& row(int index) const { return rows_.at(static_cast<std::size_t>(index)); }
    /// The row of a mention among the shown rows, or -1.
    int rowOf(const project::MentionKey& key) const;
    int openCount() const;  ///< shown rows not settled
    const std::string& curatorA() const { return a_; }
    const std::string& curatorB() const { return b_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    const LoadedProject* project_ = nullptr;
    std::function<std::string(const project::MentionKey&)> proposal_;
    std::vector<curation::Disagreement> all_;
    std::vector<Row> rows_;
    std::string a_, b_;
    std::string split_, type_;
};

/// How a decision reads in the table: its link, or "rejected" / "NIL (-1)" / "skip".
QString describeLink(const project::Decision& decision);

}  // namespace linkscope::ui
