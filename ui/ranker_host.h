#pragma once
// The rankers of an open project, on the GUI thread: the sparse TF-IDF ranker (built on a worker
// when the project opens, then every mention's proposal, a batch of documents at a time), and a
// trained run with its kNN datastore when the user links with one (linkWithRun). The active
// ranker is the run's while one is linked, else the sparse one.
//
// It follows the decision log (decision_log.h): with a run linked, every decision that comes into
// effect becomes a datastore key, the one it replaces (or undo takes back) leaves, and the
// mentions whose ranking that changes are ranked again at once, a few per turn of the event loop
// (rankingsChanged). It reads the log's decisions in effect when a run is linked.
//
// A trained run is held as a RunRanker (run_ranker.h) made by the dense module, which the run's
// job loads on its worker the first time (dense_engine_loader.h): no LibTorch before that.
#include <QObject>
#include <QString>

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "background_job.h"
#include "curation/candidate_row.h"
#include "curation/proposal_ranking.h"
#include "decision_log.h"
#include "project/curation_decision.h"
#include "run_ranker.h"

namespace linkscope {
struct LoadedProject;
struct Mention;
namespace curation {
class SparseCandidates;
enum class LinkMode;
}  // namespace curation
}  // namespace linkscope

namespace linkscope::ui {

class RankerHost : public QObject {
    Q_OBJECT
public:
    /// Follows `decisions`, which must outlive the host.
    explicit RankerHost(const DecisionLog& decisions, QObject* parent = nullptr);
    ~RankerHost() override;

    /// Starts building the sparse ranker of a project (the one the decision log has open).
    void open(std::shared_ptr<const LoadedProject> project);
    /// Stops the workers and forgets every ranker and proposal.
    void close();

    /// Whether the sparse ranker is built (rankerReady was emitted for it).
    bool sparseRankerBuilt() const { return sparseRanker_ != nullptr; }
    /// The sparse ranker, to share with other views (the embedding plot); null before.
    std::shared_ptr<const curation::SparseCandidates> sparseRanker() const { return sparseRanker_; }
    /// The active ranker's candidates: the trained run's when one is linked, else sparse; before
    /// the sparse ranker is built, the entities one of whose names is the mention's text
    /// (curation/exact_name_candidates.h).
    std::vector<curation::CandidateRow> rankCandidates(const project::MentionKey& key, const Mention& mention,
                                                       std::size_t k = 20) const;
    /// The ranker's top entity for a mention (the link proposed when nothing was decided).
    /// `ranked`, when given, is rankCandidates() of this mention already at hand: its first row
    /// is taken instead of ranking the mention again where no proposal is kept yet.
    std::string proposedLink(const project::MentionKey& key, const Mention& mention,
                             const std::vector<curation::CandidateRow>* ranked = nullptr) const;

    /// Whether this build can link with a trained run (the dense module, with LibTorch, is
    /// installed). Does not load it.
    static bool runLinkingAvailable();
    /// Starts linking every mention with a trained run on a worker: rankerProgress while it
    /// loads the dense engine (the first time) and builds, then runLinked, or errorOccurred and
    /// runLinkingCancelled. The sparse ranker stays in use until then. The training datastore is
    /// kept in the project file.
    void linkWithRun(const QString& runDirectory, curation::LinkMode mode);
    /// Stops a linkWithRun() under way (runLinkingCancelled once the worker has stopped).
    void cancelRunLinking();
    bool runLinkingUnderWay() const { return runJob_.isRunning(); }
    /// Goes back to the sparse ranker.
    void linkWithSparse();
    /// The trained run's ranker in use, null while sparse ranks.
    const RunRanker* runRanker() const { return runRanker_.get(); }
    /// One line on the active ranker ("sparse TF-IDF ...", or the run's description).
    QString rankerDescription() const;

    /// Mentions a decision reached that are still to be ranked again (rankingsChanged follows).
    bool rerankPending() const { return !pendingRerank_.empty(); }
    /// The mentions the latest decision (or undo, or redo) fed to the datastore moved to another
    /// proposal, as far as they are ranked again so far (complete once rerankPending() is false).
    const std::vector<project::MentionKey>& changedByLastDecision() const { return changedByLast_; }

    /// The ranker's view of one mention, computed for every mention of the project on the worker
    /// once the sparse ranker is built, a batch of documents at a time (proposalsRanked), the
    /// documents asked for with prioritizeDocument() first, until every mention is ranked
    /// (proposalsComplete).
    struct Proposal {
        std::string entity;   ///< top entity ("" when nothing was ranked)
        double score = 0.0;   ///< its score
        double margin = 0.0;  ///< its lead over the second entity (its score when alone)
    };
    /// Every mention's proposal is known (what the review filters and the queue need).
    bool proposalsAvailable() const { return sparseProposalsComplete_ || runRanker_ != nullptr; }
    /// Mentions whose sparse proposal is known so far (all of them once proposalsAvailable()).
    std::size_t proposalsKnown() const { return sparseProposals_.size(); }
    /// Asks the worker to rank this document's mentions next (the one the curator opened), if
    /// they are not ranked yet; also before the sparse ranker is built.
    void prioritizeDocument(const std::string& split, const std::string& document);
    /// The active ranker's proposal.
    std::optional<Proposal> proposal(const project::MentionKey& key) const;
    /// The sparse ranker's proposal, also while a run ranks (the review queue reads their
    /// disagreement); unset before sparse ranked this mention.
    std::optional<Proposal> sparseProposal(const project::MentionKey& key) const;
    /// Low confidence, for the sparse ranker: the top name's TF-IDF cosine is below 0.8 (no close
    /// spelling of any KB name) or it leads the next entity by less than 0.02 (a near tie).
    static bool lowSparseConfidence(const Proposal& proposal);
    /// Low confidence for the active ranker (a trained run has its own measure).
    bool lowConfidence(const Proposal& proposal) const;

    /// A mention whose proposal a decision would move through the run's datastore.
    struct MoveRef {
        MentionRef ref;
        std::string before;
        std::string after;
    };
    /// Before a decision linking `key` to `entity` is made: the other mentions without a decision
    /// whose proposal its kNN key would change, exactly (RunRanker::wouldMove:
    /// the key added for a moment, the reached mentions ranked again). Empty while sparse ranks.
    std::vector<MoveRef> datastoreMoves(const project::MentionKey& key, const std::string& entity);
    /// The review queue's reach with a linked run: per mention, the undecided mentions its
    /// decision's key would reach in the run's datastore (RunRanker::reachCounts).
    /// Unset while sparse ranks, or when the run could not find them (too many mentions).
    std::optional<std::map<project::MentionKey, std::size_t>> datastoreReachCounts() const;
    /// A mention of the project by key (null when the project has no such mention).
    const Mention* mentionOf(const project::MentionKey& key) const;

Q_SIGNALS:
    /// The active ranker ranks candidates now: the sparse ranker is built, a run is linked, or
    /// sparse (built) ranks again.
    void rankerReady();
    /// Every proposal may have changed (another ranker took over): every view reads them again.
    void proposalsReady();
    /// The sparse ranker has just proposed these mentions' links (a batch of whole documents).
    void proposalsRanked(const std::vector<linkscope::project::MentionKey>& mentions);
    /// The sparse ranker has proposed a link for every mention (proposalsAvailable() is true).
    void proposalsComplete();
    /// A ranker's worker (the sparse build, or a run's linking) went on to `stage`.
    void rankerProgress(const QString& stage, int percent);
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
    /// The log's decision in effect on a mention went from `before` to `after`: the datastore
    /// of a linked run follows (the replaced decision's key out, the new one's in).
    void followDecision(const std::optional<project::Decision>& before, const std::optional<project::Decision>& after);
    void startSparseRanker();
    void adoptSparseProposals(const curation::ProposalRanking::Batch& batch);
    void feedRun(const project::Decision& decision);
    void unfeedRun(const project::Decision& decision);
    /// Queues mentions to rank again; they are ranked kRerankBatch per turn of the event loop.
    void scheduleRerank(const std::vector<project::MentionKey>& mentions);
    void rerankSome();
    void clearPendingRerank();
    void adoptRunRanker(std::shared_ptr<RunRanker> runRanker);
    /// The text the sparse ranker ranks for a mention (its expansion, or itself).
    const std::string& sparseText(const project::MentionKey& key, const Mention& mention) const;

    const DecisionLog& decisions_;
    std::shared_ptr<const LoadedProject> project_;
    std::vector<project::MentionKey> changedByLast_;  ///< see changedByLastDecision()

    /// What the sparse worker hands over first: the ranker (the proposals follow in batches).
    struct SparseBuilt {
        std::shared_ptr<const curation::SparseCandidates> ranker;
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
    std::shared_ptr<const std::map<project::MentionKey, std::string>> expansions_;
    std::shared_ptr<const curation::SparseCandidates> sparseRanker_;
    std::map<project::MentionKey, Proposal> sparseProposals_;  ///< as far as ranked
    bool sparseProposalsComplete_ = false;
    std::shared_ptr<PendingRanking> proposalRanking_;
    /// Builds the sparse ranker, then ranks every mention's proposal.
    BackgroundJob sparseJob_;

    /// The trained run's ranker, built by a job of its own: no other job delays it, and close()
    /// waits for this job alone.
    std::shared_ptr<RunRanker> runRanker_;
    BackgroundJob runJob_;

    std::deque<project::MentionKey> pendingRerank_;  ///< in order of arrival, no repeats
    std::set<project::MentionKey> pendingSet_;       ///< the same, for the repeat check
    bool rerankQueued_ = false;
};

}  // namespace linkscope::ui
