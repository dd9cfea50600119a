#pragma once
// The Documents dock: the open project's documents as a table, a text filter (PMID or title), a
// review filter (unreviewed, disagreements with gold, low confidence, worth reviewing) and the
// reviewed/total line of every split. It keeps its review figures current from the curation
// session's signals; selecting a row emits documentSelected.
#include <QDockWidget>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "project/curation_decision.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace linkscope {
struct LoadedProject;
class Document;
}  // namespace linkscope

namespace linkscope::ui {

class CurationSession;
class DecisionLog;
class DocumentFilterModel;
class DocumentListModel;
class RankerHost;

class DocumentsDock : public QDockWidget {
    Q_OBJECT
public:
    /// The review figures and the review queue are read from `session`, which must outlive the dock.
    explicit DocumentsDock(CurationSession* session, QWidget* parent = nullptr);
    ~DocumentsDock() override;

    /// Lists `project`'s documents (nullptr: none); their review figures are read when shown.
    void setProject(std::shared_ptr<const LoadedProject> project);
    DocumentListModel* model() const { return documents_; }
    QTableView* table() const { return table_; }

    /// Selects the first listed document (documentSelected follows); false when none is listed.
    bool selectFirst();
    /// Selects the listed document `pmid` of `split` (documentSelected follows) and returns it;
    /// nullptr when the filters hide it or there is no such document.
    const Document* selectDocument(const std::string& split, const std::string& pmid);
    /// Clears the text and review filters, so that every document is listed.
    void showAllDocuments();

    /// Every document's review figures changed (the proposals arrived, another ranker).
    void refreshReview();
    /// Only these mentions' documents changed (a decision, a re-ranking).
    void refreshReview(const std::vector<project::MentionKey>& changed);

Q_SIGNALS:
    /// The selected document and its split's name; nullptr (and "") when none is selected.
    void documentSelected(const linkscope::Document* document, const std::string& split);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void selectRow(const QModelIndex& proxyIndex);
    void showReviewProgress();  ///< the reviewed/total line of every split
    /// The "Worth reviewing" priorities, computed again while that filter is on.
    void refreshReviewQueue();
    std::string splitOfRow(int sourceRow) const;

    CurationSession* session_;  ///< the owner of the two below (the review queue reads it)
    const DecisionLog* decisions_;
    const RankerHost* rankers_;
    std::shared_ptr<const LoadedProject> project_;
    DocumentListModel* documents_ = nullptr;
    DocumentFilterModel* filter_ = nullptr;
    QLineEdit* search_ = nullptr;
    QComboBox* reviewFilter_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* reviewProgress_ = nullptr;
    std::map<std::pair<std::string, std::string>, double> reviewPriorities_;
};

}  // namespace linkscope::ui
