#pragma once
// The Candidates dock: the selected mention, its ranked candidates with score parts, and the
// curation actions. Enter accepts the link in effect (the top candidate when nothing was
// decided), the number keys 1-9 pick a candidate (accept when it is the link in effect, correct
// otherwise), and the search box corrects to any entity of the knowledge base.
#include <QWidget>

class QFrame;
class QLabel;
class QListWidget;
class QPushButton;
class QTableView;

namespace linkscope::ui {

class CandidateModel;
class ReachPreview;

class CandidatesPanel : public QWidget {
    Q_OBJECT
public:
    explicit CandidatesPanel(QWidget* parent = nullptr);

    CandidateModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    /// What choosing the selected candidate would change beyond this mention (reach_preview.h).
    ReachPreview* reachPreview() const { return reach_; }
    /// Where the entity search box goes (the Knowledge base half of the GUI provides it).
    void setSearchWidget(QWidget* search);
    /// The mention line above the table (rich text).
    void setMentionSummary(const QString& html);
    void setActionsEnabled(bool enabled);

    /// Picks candidate `rank` (1-based) as the keyboard does; false when there is no such row.
    bool pick(int rank);
    /// Accepts: the link in effect (as Enter does).
    void accept();

    /// Offers to apply the last decision to the mentions listed (one line each) until the
    /// curator applies it, dismisses it or the offer is replaced.
    void offerSameSurface(const QString& summary, const QStringList& mentions);
    void clearOffer();
    bool hasOffer() const;

Q_SIGNALS:
    void acceptRequested();
    void correctRequested(const QString& entityId);
    void rejectRequested();
    void nilRequested();
    void skipRequested();
    void applyToAllRequested();

private:
    CandidateModel* model_;
    QTableView* table_;
    QLabel* summary_;
    QWidget* searchSlot_;
    QPushButton* acceptButton_;
    QPushButton* rejectButton_;
    QPushButton* nilButton_;
    QPushButton* skipButton_;
    QFrame* offer_;
    QLabel* offerSummary_;
    QListWidget* offerList_;
    ReachPreview* reach_;
};

}  // namespace linkscope::ui
