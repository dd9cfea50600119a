#pragma once
// The curation flow of the main window: which document and mention are shown, the candidates of
// the selected mention, the decisions on it (the Candidates dock's buttons, the curation keys,
// the "correct to" search), the offer to apply a decision to every unreviewed mention of the
// same text, the preview of a candidate's reach and the review queue's next mention. Decisions
// are recorded by the CurationSession; this class turns the curator's actions into them, keeps
// the document view and the Candidates dock current as they change, and writes the ranker's
// progress and outcome to the message log.
#include <QObject>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mention_adapter.h"
#include "project/curation_decision.h"

class QMenu;
class QWidget;

namespace linkscope {
struct LoadedProject;
class Document;
struct Mention;
}  // namespace linkscope

namespace linkscope::ui {

class CandidatesPanel;
class CurationSession;
class DecisionLog;
class DocumentView;
class DocumentsDock;
class EntitySearchBox;
class MessageLog;
class RankerHost;
struct QueuedMention;

class CurationController : public QObject {
    Q_OBJECT
public:
    /// Every widget passed must outlive the controller (give it the window as parent).
    CurationController(CurationSession* session, DocumentsDock* documents, DocumentView* view,
                       CandidatesPanel* candidates, EntitySearchBox* correctionSearch, MessageLog* log,
                       QObject* parent = nullptr);

    /// Adds Undo, Redo and the curation keys to `edit`; the keys are window shortcuts of `window`.
    void createActions(QMenu* edit, QWidget* window);

    /// Another project: no document is shown, and the candidates and any offer are dropped.
    void setProject(std::shared_ptr<const LoadedProject> project);
    /// Drops the candidates and the offer (the session is closing).
    void clear();
    /// Shows `document` of `split` in the document view (nullptr: none).
    void showDocument(const Document* document, const std::string& split);
    const Document* currentDocument() const { return currentDocument_; }
    /// The selected mention's key, when a mention is selected.
    std::optional<project::MentionKey> currentMentionKey() const;

    /// Records a decision on the selected mention; false when there is no selected mention or
    /// the decision was refused.
    bool decideCurrent(project::DecisionKind kind, const QString& entityId = {});
    /// Selects the mention's document in the Documents dock and the mention in the view; false
    /// when the filters hide the document or there is no such mention.
    bool showMention(const QString& split, const QString& pmid, int start, int end);
    /// Lists, in the Candidates dock, the mentions the last decision moved to another proposal;
    /// returns how many.
    int showChangedByLastDecision();
    /// Selects the first mention of the review queue (ui/review_queue_order.h); false when none.
    /// In a team project the mention is claimed first, off the GUI thread: true when the claim
    /// was asked, and the mention is selected once it is answered (ReviewClaims::nextAnswered).
    bool nextWorthReviewing();

private:
    static QString source();  ///< the message log's name for this flow
    const Mention* currentMention() const;
    MentionStatusFn statusFunction() const;
    void showCandidates();
    void refreshMentionStates();
    void showRankingsChanged(const std::vector<project::MentionKey>& reranked);
    void offerSameSurface(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind);
    void applyOffer();
    /// Fills the Candidates dock's reach preview for candidate `entity` ("" clears it).
    void previewReach(const QString& entity);
    /// Selects `entry`, the next mention of a queue of `queueSize`, and says why; false when
    /// it cannot be shown.
    bool showWorthReviewing(const QueuedMention& entry, int queueSize);

    CurationSession* session_;  ///< the owner of the two below (the review queue reads it)
    DecisionLog* decisions_;
    RankerHost* rankers_;
    DocumentsDock* documents_;
    DocumentView* view_;
    CandidatesPanel* candidates_;
    MessageLog* log_;
    std::shared_ptr<const LoadedProject> project_;
    std::string currentSplit_;
    const Document* currentDocument_ = nullptr;
    /// The last decision's "apply to all identical mentions" offer.
    struct SameSurfaceOffer {
        std::vector<std::pair<project::MentionKey, const Mention*>> mentions;
        project::DecisionKind kind = project::DecisionKind::Accept;
        std::string link;
    };
    SameSurfaceOffer offer_;
    bool placingClaim_ = false;  ///< nextWorthReviewing is showing the mention it claimed
};

}  // namespace linkscope::ui
