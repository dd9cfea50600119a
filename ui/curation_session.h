#pragma once
// The curation state of an open project, on the GUI thread: the project file (decisions and
// their undo history, core/project/project_store.h), the QUndoStack that mirrors that history,
// and the candidate ranker (built on a worker thread): sparse TF-IDF from the start, and a
// trained run with its kNN datastore when the user links with one (linkWithRun). With a run,
// every accept and correct becomes a datastore key as it is stored, undo takes it back, and the
// mentions whose ranking that changes are ranked again at once (rankingsChanged).
//
// Every decision goes to the project file first and is shown as done only after the store's
// transaction has committed: decide() returns once it is on disk, and decisionChanged is emitted
// after that. Undo and redo are state changes in the store, so the QUndoStack is rebuilt from
// the store when a project is reopened and undo goes on where the last session stopped.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "curation/candidate_row.h"
#include "curation/proposal_ranking.h"
#include "project/curation_decision.h"

class QUndoStack;

namespace linkscope {
class Document;
struct LoadedProject;
struct Mention;
namespace project {
class ProjectStore;
}
namespace curation {
class SparseCandidates;
class ModelCandidates;
enum class LinkMode;
}  // namespace curation
}  // namespace linkscope

namespace linkscope::ui {

class CurationSession : public QObject {
    Q_OBJECT
public:
    explicit CurationSession(QObject* parent = nullptr);
    ~CurationSession() override;

    /// The project file kept for a manifest: <app data>/projects/<manifest stem>-<hash of its
    /// absolute path>.linkscope, so that opening the same manifest again finds its decisions and
    /// a read-only installation (the demo project) still gets a writable file.
    static QString projectFileForManifest(const QString& manifestPath);

    /// Opens (or creates from the project's manifest) the project file and rebuilds the undo
    /// stack from it; starts building the candidate ranker. Returns an error message, empty on
    /// success.
    QString open(std::shared_ptr<const LoadedProject> project, const QString& projectFile);
    void close();
    bool isOpen() const { return store_ != nullptr; }
    QString projectFile() const { return projectFile_; }

    QUndoStack* undoStack() const { return undoStack_; }
    project::ProjectStore* store() const { return store_.get(); }
    const LoadedProject* project() const { return project_.get(); }

    QString curator() const { return curator_; }
    void setCurator(const QString& name) { curator_ = name; }

    /// Candidates, once the ranker is built (candidatesReady); empty before.
    bool candidatesAvailable() const { return candidates_ != nullptr; }
    /// The sparse ranker, to share with other views (the embedding plot); null before.
    std::shared_ptr<const curation::SparseCandidates> sparseCandidates() const { return candidates_; }
    /// The active ranker's candidates: the trained run's when one is linked, else sparse; before
    /// the sparse ranker is built, the entities one of whose names is the mention's text
    /// (curation/exact_name_candidates.h).
    std::vector<curation::CandidateRow> candidates(const project::MentionKey& key, const Mention& mention,
                                                   std::size_t k = 20) const;
    /// The ranker's top entity for a mention (the link proposed when nothing was decided).
    /// `ranked`, when given, is candidates() of this mention already at hand: its first row is
    /// taken instead of ranking the mention again where no proposal is kept yet.
    std::string proposedLink(const project::MentionKey& key, const Mention& mention,
                             const std::vector<curation::CandidateRow>* ranked = nullptr) const;

    /// Whether this build can link with a trained run (it needs LibTorch).
    static bool runLinkingAvailable();
    /// Starts linking every mention with a trained run on a worker (its own thread pool):
    /// candidatesProgress while it builds, then runLinked, or errorOccurred. The sparse ranker
    /// stays in use until then. The training datastore is kept in the project file.
    void linkWithRun(const QString& runDirectory, curation::LinkMode mode);
    /// Stops a linkWithRun() under way (runLinkingCancelled once the worker has stopped).
    void cancelRunLinking();
    bool runLinkingUnderWay() const { return modelWatcher_.isRunning(); }
    /// Mentions a decision reached that are still to be ranked again (rankingsChanged follows).
    bool rerankPending() const { return !pendingRerank_.empty(); }
    /// The mentions the latest decision (or undo, or redo) fed to the datastore moved to another
    /// proposal, as far as they are ranked again so far (complete once rerankPending() is false).
    const std::vector<project::MentionKey>& changedByLastDecision() const { return changedByLast_; }
    /// Goes back to the sparse ranker.
    void linkWithSparse();
    /// The run linking in use, null when sparse.
    const curation::ModelCandidates* runLinking() const { return model_.get(); }
    /// The same, shared (what outlives a change of ranker: the embedding plot's encoder).
    std::shared_ptr<const curation::ModelCandidates> sharedRunLinking() const { return model_; }
    /// One line on the active ranker ("sparse TF-IDF ...", or the run's description).
    QString rankerDescription() const;

    /// The ranker's view of one mention, computed for every mention of the project on the worker
    /// once the ranker is built, a batch of documents at a time (proposalsRanked), the documents
    /// asked for with prioritizeDocument() first, until every mention is ranked (proposalsComplete).
    struct Proposal {
        std::string entity;   ///< top entity ("" when nothing was ranked)
        double score = 0.0;   ///< its score
        double margin = 0.0;  ///< its lead over the second entity (its score when alone)
    };
    /// Every mention's proposal is known (what the review filters and the queue need).
    bool proposalsAvailable() const { return proposalsComplete_ || model_ != nullptr; }
    /// Mentions whose sparse proposal is known so far (all of them once proposalsAvailable()).
    std::size_t proposalsKnown() const { return proposals_.size(); }
    /// Asks the worker to rank this document's mentions next (the one the curator opened), if
    /// they are not ranked yet; also before the ranker is built.
    void prioritizeDocument(const std::string& split, const std::string& document);
    std::optional<Proposal> proposal(const project::MentionKey& key) const;
    /// The sparse ranker's proposal, also while a run ranks (the review queue reads their
    /// disagreement); unset before sparse ranked every mention.
    std::optional<Proposal> sparseProposal(const project::MentionKey& key) const;
    /// Low confidence, for the sparse ranker: the top name's TF-IDF cosine is below 0.8 (no close
    /// spelling of any KB name) or it leads the next entity by less than 0.02 (a near tie).
    static bool lowSparseConfidence(const Proposal& proposal);
    /// Low confidence for the active ranker (a trained run has its own measure).
    bool lowConfidence(const Proposal& proposal) const;

    /// Review figures of one document: mentions with a decision, mentions whose link in effect
    /// differs from the gold ids, mentions of low confidence without a decision.
    struct DocumentReview {
        int mentions = 0;
        int reviewed = 0;
        int disagreements = 0;
        int lowConfidence = 0;
    };
    DocumentReview review(const std::string& split, const Document& document) const;
    /// Mentions of a split with a decision in effect (what review() counts as reviewed, summed
    /// over the split's documents, without ranking anything).
    int reviewedIn(const std::string& split) const;

    /// The latest decision in effect on a mention.
    std::optional<project::Decision> currentDecision(const project::MentionKey& key) const;
    /// The link in effect: the current decision's, else the proposed one ("" when none);
    /// `ranked` as for proposedLink().
    std::string linkInEffect(const project::MentionKey& key, const Mention& mention,
                             const std::vector<curation::CandidateRow>* ranked = nullptr) const;

    /// Records a decision through the undo stack (stored before this returns). newLink: the
    /// chosen ids for accept / correct (joined by '|'), ignored otherwise. Returns false, with
    /// errorOccurred emitted, when the store refused it.
    bool decide(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                const std::string& newLink = {});

    /// Called by the undo commands: the store's side of record / undo / redo. Each emits
    /// decisionChanged for the mention on success and errorOccurred otherwise.
    std::optional<project::Decision> storeRecord(const project::Decision& decision);
    bool storeUndo(std::int64_t expectedId);
    bool storeRedo(std::int64_t expectedId);

    /// A mention of the project, by key, with the mention itself (owned by the project).
    struct MentionRef {
        project::MentionKey key;
        const Mention* mention = nullptr;
    };
    /// The other mentions of the project that read like `mention` (same text, ignoring case and
    /// spacing), have no decision yet, and whose link in effect is not `link`: what "apply to
    /// all identical mentions" would change. Project order (split, document, offset).
    std::vector<MentionRef> sameSurface(const project::MentionKey& key, const Mention& mention,
                                        const std::string& link) const;
    /// A mention whose proposal a decision would move through the run's datastore.
    struct MoveRef {
        MentionRef ref;
        std::string before;
        std::string after;
    };
    /// Before a decision linking `key` to `entity` is made: the other mentions without a decision
    /// whose proposal its kNN key would change, exactly (curation::ModelCandidates::wouldMove:
    /// the key added for a moment, the reached mentions ranked again). Empty while sparse ranks.
    std::vector<MoveRef> datastoreMoves(const project::MentionKey& key, const std::string& entity);
    /// The review queue's reach with a linked run: per mention, the undecided mentions its
    /// decision's key would reach in the run's datastore (curation::ModelCandidates::reachCounts).
    /// Unset while sparse ranks, or when the run could not find them (too many mentions).
    std::optional<std::map<project::MentionKey, std::size_t>> datastoreReachCounts() const;
    /// A mention of the project by key (null when the project has no such mention).
    const Mention* mentionOf(const project::MentionKey& key) const;
    /// Records the same decision on every mention listed, as one undo step (a macro; reopened
    /// projects undo them one by one). Returns how many were stored.
    int decideAll(const std::vector<MentionRef>& mentions, project::DecisionKind kind, const std::string& newLink);

    /// Several curators (issue 18, core/curation/adjudication.h): records a decision as decide()
    /// does, under this session's curator name marked as an adjudicator's.
    bool adjudicate(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                    const std::string& newLink = {});
    /// Starts recording another curator's project file's decisions in effect into this one
    /// (core/curation/curator_merge.h) on a worker, through its own connection to the project
    /// file (a commit per decision waits for the disk): mergeProgress while it runs, then the
    /// decisions and the undo stack are read again from the store (decisionsReloaded) and
    /// mergeFinished says what was merged or why not. False when no project is open or a merge
    /// is under way. Undo and redo are refused while it runs (the stack is rebuilt at its end).
    /// A linked run's datastore is fed the decisions the merge put in effect.
    bool startMerge(const QString& file);
    /// Stops a merge under way before its next decision (the ones merged stay; mergeFinished follows).
    void cancelMerge();
    /// From startMerge() until the decisions are read back (mergeFinished).
    bool mergeUnderWay() const { return merging_; }

Q_SIGNALS:
    void decisionChanged(const linkscope::project::MentionKey& key);
    /// Many decisions changed at once (a merge): every view reads them again.
    void decisionsReloaded();
    void mergeProgress(int percent);
    /// A merge ended: `summary` says what was merged, `error` why it stopped ("" when it did not).
    void mergeFinished(const QString& summary, const QString& error);
    void candidatesReady();
    /// Every proposal may have changed (another ranker took over): every view reads them again.
    void proposalsReady();
    /// The sparse ranker has just proposed these mentions' links (a batch of whole documents).
    void proposalsRanked(const std::vector<linkscope::project::MentionKey>& mentions);
    /// The sparse ranker has proposed a link for every mention (proposalsAvailable() is true).
    void proposalsComplete();
    void candidatesProgress(const QString& stage, int percent);
    void errorOccurred(const QString& message);
    /// A trained run now ranks every mention (rankerDescription() says which).
    void runLinked();
    void runLinkingCancelled();
    /// Back to sparse TF-IDF.
    void sparseLinked();
    /// A decision (or its undo) changed the datastore and these mentions were ranked again (a
    /// few per turn of the event loop, so one decision may give several signals); `topChanged`
    /// of them now propose another entity.
    void rankingsChanged(const std::vector<linkscope::project::MentionKey>& reranked, int topChanged);

private:
    void rebuildUndoStack();
    void reloadDecisions();
    void startCandidates();
    void adoptProposals(const curation::ProposalRanking::Batch& batch);
    void feedModel(const project::Decision& decision);
    void unfeedModel(const project::Decision& decision);
    /// Queues mentions to rank again; they are ranked kRerankBatch per turn of the event loop.
    void scheduleRerank(const std::vector<project::MentionKey>& mentions);
    void rerankSome();
    void clearPendingRerank();
    void adoptModel(std::shared_ptr<curation::ModelCandidates> model);

    std::shared_ptr<const LoadedProject> project_;
    std::vector<project::MentionKey> changedByLast_;  ///< see changedByLastDecision()
    std::unique_ptr<project::ProjectStore> store_;
    QString projectFile_;
    QUndoStack* undoStack_ = nullptr;
    QString curator_;
    bool lastRecordStored_ = false;  ///< set by storeRecord, read by decide
    std::map<project::MentionKey, project::Decision> current_;
    /// What the worker hands back: the ranker (the proposals follow in batches, queued to the
    /// session, so that no batch stays held in the future's results).
    struct Ranked {
        std::shared_ptr<const curation::SparseCandidates> candidates;
        /// What the sparse ranker ranks for a mention whose document defines an abbreviation
        /// in it: the expanded text (ui/abbreviation_expansion.h); other mentions rank their text.
        std::shared_ptr<const std::map<project::MentionKey, std::string>> expansions;
    };
    /// The worker's proposal ranking as the GUI thread reaches it: documents asked for before
    /// the ranking starts (while the ranker is built) wait here and are passed on at its start.
    struct PendingRanking {
        void start(curation::ProposalRanking& ranking);
        void stop();
        void prioritize(const std::string& split, const std::string& document);

    private:
        std::mutex mutex;
        curation::ProposalRanking* running = nullptr;
        std::vector<std::pair<std::string, std::string>> early;
    };
    /// The text the sparse ranker ranks for a mention (its expansion, or itself).
    const std::string& sparseText(const project::MentionKey& key, const Mention& mention) const;
    std::shared_ptr<const std::map<project::MentionKey, std::string>> expansions_;
    std::shared_ptr<const curation::SparseCandidates> candidates_;
    std::map<project::MentionKey, Proposal> proposals_;  ///< the sparse ranker's, as far as ranked
    bool proposalsComplete_ = false;
    std::shared_ptr<PendingRanking> proposalRanking_;
    /// Its own pool: on the global one a long job holds the threads that Qt's raster engine
    /// borrows for large fills, and painting then waits for the job (benchmarks/ui_stall).
    QThreadPool rankerPool_;
    QFutureWatcher<Ranked> candidateWatcher_;
    std::shared_ptr<std::atomic<bool>> cancelCandidates_;
    /// The trained run's linking: built on its own pool, so that no other job's worker delays it
    /// and close() waits for this job alone.
    std::shared_ptr<curation::ModelCandidates> model_;
    QThreadPool modelPool_;
    QFutureWatcher<std::shared_ptr<curation::ModelCandidates>> modelWatcher_;
    std::shared_ptr<std::atomic<bool>> cancelModel_;
    std::deque<project::MentionKey> pendingRerank_;  ///< in order of arrival, no repeats
    std::set<project::MentionKey> pendingSet_;       ///< the same, for the repeat check
    bool rerankQueued_ = false;
    /// A merge (startMerge): on its own pool, so that close() waits for this job alone.
    struct MergeOutcome {
        QString summary;
        QString error;
    };
    QThreadPool mergePool_;
    QFutureWatcher<MergeOutcome> mergeWatcher_;
    std::shared_ptr<std::atomic<bool>> cancelMerge_;
    bool merging_ = false;
};

}  // namespace linkscope::ui
