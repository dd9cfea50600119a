#pragma once
// File > Adjudicate Disagreements: two curators of the open project file (after
// File > Merge Another Curator's Project), their agreement (Cohen's kappa overall, per split and
// per type, core/curation/agreement.h), and the mentions they decided differently side by side.
// Picking A's link, B's, or another entity records an adjudication at once, through the undo
// stack of the decision log (ui/decision_log.h), so Ctrl+Z takes it back; selecting a row shows
// the mention in the document view (mentionActivated). The rules of several curators are in
// core/curation/adjudication.h.
//
// Not modal: it follows the decision log, refreshed from the project file (once per turn of the
// event loop) whenever decisions change while it is shown.
//
// A team project on a server: the decisions are read from the server as this login may read them
// (every curator's for an adjudicator or a reviewer; in blind mode a curator's own only), again
// whenever another curator's decision arrives (team_live_updates.h). In blind mode the agreement
// counts the overlap documents only (review_claims.h), the ones given to two curators. A pick
// is recorded on the server for an adjudicator's login (or the project's owner); a curator's or
// a reviewer's is refused in plain words in the status line, and so is what the server refuses,
// the view left as it was. While the connection is lost the figures stay those read before.
#include <QDialog>

#include <memory>
#include <string>

#include "curation/agreement.h"
#include "project/curation_decision.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTableWidget;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class CurationSession;
class DecisionLog;
class RankerHost;
class ReviewClaims;
class TeamLiveUpdates;
class DisagreementModel;

class AdjudicationDialog : public QDialog {
    Q_OBJECT
public:
    /// Reads and records through the session's decision log; the session must outlive the dialog.
    explicit AdjudicationDialog(CurationSession* session, QWidget* parent = nullptr);

    /// Reads the curators, the agreement and the disagreements from the project file again.
    void refresh();

    /// Record an adjudication on the selected disagreement: curator A's decision, B's, or a link
    /// to the entity ids typed (a '|'-joined list for a composite). False, with the reason in
    /// statusText(), when no row is selected, the ids do not parse or the store refused it.
    bool takeA();
    bool takeB();
    bool takeOther(const QString& ids);

    // For tests and the main window.
    QComboBox* curatorA() const { return curatorA_; }
    QComboBox* curatorB() const { return curatorB_; }
    QComboBox* splitFilter() const { return splitFilter_; }
    QComboBox* typeFilter() const { return typeFilter_; }
    QTableWidget* agreementTable() const { return agreement_; }
    QTableView* disagreementTable() const { return table_; }
    DisagreementModel* model() const { return model_; }
    QString summaryText() const;
    QString statusText() const;
    /// The figures shown (for the curators chosen).
    const curation::AgreementReport& report() const { return report_; }

    /// The columns of the agreement table.
    enum AgreementColumn {
        BothColumn,
        AgreedColumn,
        ObservedColumn,
        ExpectedColumn,
        KappaColumn,
        OnlyAColumn,
        OnlyBColumn
    };

Q_SIGNALS:
    void mentionActivated(const QString& split, const QString& pmid, int start, int end);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updateFigures();
    void applyFilter();
    void updateButtons();
    bool pick(project::DecisionKind kind, const std::string& link);
    bool take(const std::string& curator);
    void fillCurators(const std::vector<std::string>& curators);
    void fillFilters();
    /// "Live from the team project, as ann (blind: ...)." for a project on a server.
    QString liveText() const;
    /// Why this login may not adjudicate (its role in the project), "" when it may.
    QString roleRefusal() const;

    DecisionLog* decisions_;
    const RankerHost* rankers_;                    ///< the proposals shown beside the curators' links
    const ReviewClaims* claims_;                   ///< a team project's mode
    const TeamLiveUpdates* live_;                  ///< a team project's connection
    const LoadedProject* typedProject_ = nullptr;  ///< the project types_ were read from
    curation::MentionTypeFn types_;
    curation::AgreementReport report_;
    std::vector<project::Decision> done_;
    QComboBox* curatorA_;
    QComboBox* curatorB_;
    QComboBox* splitFilter_;
    QComboBox* typeFilter_;
    QLabel* summary_;
    QTableWidget* agreement_;
    QTableView* table_;
    DisagreementModel* model_;
    QPushButton* takeA_;
    QPushButton* takeB_;
    QLineEdit* other_;
    QPushButton* takeOther_;
    QLabel* status_;
    bool refreshing_ = false;
    bool refreshQueued_ = false;  ///< a refresh is due at the next turn of the event loop
    QString lastRefusal_;         ///< the log's last error message (a refused pick's reason)
};

}  // namespace linkscope::ui
