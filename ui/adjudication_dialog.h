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

    DecisionLog* decisions_;
    const RankerHost* rankers_;                    ///< the proposals shown beside the curators' links
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
};

}  // namespace linkscope::ui
