#include "ranker_host.h"

#include <QPromise>
#include <QTimer>
#include <QtConcurrent>

#include <algorithm>
#include <string_view>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "curation/exact_name_candidates.h"
#include "curation/sparse_candidates.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include "curation/model_candidates.h"
#endif
#include "abbreviation_expansion.h"
#include "project/loaded_project.h"
#include "worker_priority.h"

namespace linkscope::ui {
namespace {

// Progress of a worker, reported on the host's thread.
ProgressSink workerProgress(RankerHost* host, std::shared_ptr<std::atomic<bool>> cancelled) {
    ProgressSink progress;
    progress.report = [host](std::string_view stage, double fraction) {
        const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
        QMetaObject::invokeMethod(
            host, [host, text, fraction] { Q_EMIT host->rankerProgress(text, static_cast<int>(fraction * 100)); },
            Qt::QueuedConnection);
    };
    progress.cancelled = [cancelled] { return cancelled->load(); };
    return progress;
}

// A worker's failure, reported on the host's thread; `what` holds %1 for the error's text.
void reportWorkerError(RankerHost* host, const QString& what, const std::exception& error) {
    const QString message = what.arg(QString::fromUtf8(error.what()));
    QMetaObject::invokeMethod(
        host, [host, message] { Q_EMIT host->errorOccurred(message); }, Qt::QueuedConnection);
}

// Mentions ranked again per turn of the event loop: in kNN mode a mention reads its kept
// neighbour list (retrieval/neighbour_lists.h); a list searched again (after undos took keys out
// of it), or the sieve, searches the datastore. The batch keeps a turn short at MedMentions' size
// (benchmarks/model_linking).
constexpr std::size_t kRerankBatch = 24;

}  // namespace

RankerHost::RankerHost(const DecisionLog& decisions, QObject* parent) : QObject(parent), decisions_(decisions) {
    connect(&decisions_, &DecisionLog::decisionInEffectReplaced, this, &RankerHost::followDecision);
    runPool_.setMaxThreadCount(1);
    connect(&runWatcher_, &QFutureWatcherBase::finished, this, [this] {
        if (runWatcher_.isCanceled() || runWatcher_.future().resultCount() == 0) {
            Q_EMIT runLinkingCancelled();
            return;
        }
        adoptRunRanker(runWatcher_.result());
    });
    // The sparse worker's one result: the ranker as soon as it is built (candidates for the
    // selected mention); the proposals of every mention follow in batches.
    connect(&sparseWatcher_, &QFutureWatcherBase::resultReadyAt, this, [this](int index) {
        const SparseBuilt built = sparseWatcher_.resultAt(index);
        if (built.ranker && !sparseRanker_) {
            sparseRanker_ = built.ranker;
            expansions_ = built.expansions;
            Q_EMIT rankerReady();
        }
    });
}

RankerHost::~RankerHost() { close(); }

void RankerHost::open(std::shared_ptr<const LoadedProject> project) {
    close();
    project_ = std::move(project);
    startSparseRanker();
}

void RankerHost::close() {
    cancelRunLinking();
    runWatcher_.waitForFinished();  // its own pool: waits for this job alone
    runRanker_.reset();
    clearPendingRerank();
    if (cancelSparse_) cancelSparse_->store(true);
    if (sparseWatcher_.isRunning()) {
        sparseWatcher_.cancel();  // the watcher then reports no result
        sparseWatcher_.waitForFinished();
    }
    sparseRanker_.reset();
    expansions_.reset();
    sparseProposals_.clear();
    sparseProposalsComplete_ = false;
    proposalRanking_.reset();
    project_.reset();
}

void RankerHost::startSparseRanker() {
    auto project = project_;
    // The worker keeps the project alive; cancellation is polled between the build's stages
    // and between batches of proposals. The token also tells this project's batches from those
    // of a project closed since (its token is cancelled and no longer cancelSparse_).
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelSparse_ = cancelled;
    // Made here so that prioritizeDocument() can reach it at once; the worker ranks with it.
    auto ranking = std::make_shared<PendingRanking>();
    proposalRanking_ = ranking;
    sparseWatcher_.setFuture(
        QtConcurrent::run(&sparsePool_, [this, project, cancelled, ranking](QPromise<SparseBuilt>& promise) {
            lowerWorkerPriority();
            const ProgressSink progress = workerProgress(this, cancelled);
            try {
                auto ranker = std::make_shared<const curation::SparseCandidates>(*project->kb,
                                                                                 /*homonymExpansion=*/true, progress);
                auto expansions = std::make_shared<std::map<project::MentionKey, std::string>>();
                for (const SplitCorpus& split : project->splits)
                    for (const Document& document : split.corpus.documents()) {
                        const auto definitions = abbreviationsOf(document);
                        for (const Mention& mention : document.mentions)
                            if (auto expanded = expandedMention(mention, definitions))
                                (*expansions)[{split.split, document.pmid(), mention.start, mention.end}] =
                                    std::move(expanded->text);
                    }
                promise.addResult(SparseBuilt{ranker, expansions});
                // Every mention's proposal, a batch of whole documents at a time, each handed to the
                // GUI thread as it is ranked (core/curation/proposal_ranking.h): the documents the
                // curator opens first, the rest in project order.
                curation::ProposalRanking proposals(*project, *ranker, *expansions);
                ranking->start(proposals);
                const auto deliver = [this, cancelled](curation::ProposalRanking::Batch&& ranked) {
                    auto batch = std::make_shared<curation::ProposalRanking::Batch>(std::move(ranked));
                    QMetaObject::invokeMethod(
                        this,
                        [this, cancelled, batch] {
                            if (cancelled == cancelSparse_ && !cancelled->load()) adoptSparseProposals(*batch);
                        },
                        Qt::QueuedConnection);
                };
                try {
                    proposals.run(deliver, progress);
                } catch (...) {
                    ranking->stop();
                    throw;
                }
                ranking->stop();
                QMetaObject::invokeMethod(
                    this,
                    [this, cancelled] {
                        if (cancelled != cancelSparse_ || cancelled->load()) return;
                        sparseProposalsComplete_ = true;
                        Q_EMIT proposalsComplete();
                    },
                    Qt::QueuedConnection);
                progress("Every mention ranked", 1.0);
            } catch (const Cancelled&) {
            } catch (const std::exception& error) {
                reportWorkerError(this, tr("Could not rank the candidates: %1"), error);
            }
        }));
}

void RankerHost::adoptSparseProposals(const curation::ProposalRanking::Batch& batch) {
    std::vector<project::MentionKey> keys;
    keys.reserve(batch.size());
    for (const auto& [key, proposal] : batch) {
        sparseProposals_[key] = Proposal{proposal.entity, proposal.score, proposal.margin};
        keys.push_back(key);
    }
    Q_EMIT proposalsRanked(keys);
}

void RankerHost::prioritizeDocument(const std::string& split, const std::string& document) {
    if (proposalRanking_) proposalRanking_->prioritize(split, document);
}

void RankerHost::PendingRanking::start(curation::ProposalRanking& ranking) {
    const std::lock_guard lock(mutex);
    running = &ranking;
    for (const auto& [split, document] : early) running->prioritize(split, document);
    early.clear();
}

void RankerHost::PendingRanking::stop() {
    const std::lock_guard lock(mutex);
    running = nullptr;
}

void RankerHost::PendingRanking::prioritize(const std::string& split, const std::string& document) {
    const std::lock_guard lock(mutex);
    if (running)
        running->prioritize(split, document);
    else
        early.emplace_back(split, document);
}

std::vector<curation::CandidateRow> RankerHost::rankCandidates(const project::MentionKey& key, const Mention& mention,
                                                               std::size_t k) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_ && runRanker_->knows(key)) return runRanker_->rank(key, k);
#endif
    if (sparseRanker_) return sparseRanker_->rank(sparseText(key, mention), k);
    // Until the sparse ranker is built: the entities the text names exactly.
    if (project_ && project_->kb) return curation::exactNameCandidates(*project_->kb, mention.text, k);
    return {};
}

const std::string& RankerHost::sparseText(const project::MentionKey& key, const Mention& mention) const {
    if (expansions_)
        if (const auto found = expansions_->find(key); found != expansions_->end()) return found->second;
    return mention.text;
}

std::string RankerHost::proposedLink(const project::MentionKey& key, const Mention& mention,
                                     const std::vector<curation::CandidateRow>* ranked) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_)
        if (const auto* proposal = runRanker_->proposal(key)) return proposal->entity;
    if (!runRanker_)
#endif
        // Every mention's top, ranked once on the worker by the same ranker and text: not a new
        // search per call ("Apply to all" and the reach preview ask for many mentions at once).
        if (const auto found = sparseProposals_.find(key); found != sparseProposals_.end()) return found->second.entity;
    // The first row of the same ranker's list is its top: the caller's list saves a second search
    // (the Candidates dock asks for both at once).
    if (ranked) return ranked->empty() ? std::string() : ranked->front().entity;
    const auto rows = rankCandidates(key, mention, 1);
    return rows.empty() ? std::string() : rows.front().entity;
}

std::optional<RankerHost::Proposal> RankerHost::proposal(const project::MentionKey& key) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_)
        if (const auto* proposal = runRanker_->proposal(key))
            return Proposal{proposal->entity, proposal->score, proposal->margin};
#endif
    return sparseProposal(key);
}

std::optional<RankerHost::Proposal> RankerHost::sparseProposal(const project::MentionKey& key) const {
    const auto found = sparseProposals_.find(key);
    if (found == sparseProposals_.end()) return std::nullopt;
    return found->second;
}

bool RankerHost::lowSparseConfidence(const Proposal& proposal) {
    return proposal.entity.empty() || proposal.score < 0.8 || proposal.margin < 0.02;
}

bool RankerHost::lowConfidence(const Proposal& proposal) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_) return runRanker_->lowConfidence({proposal.entity, proposal.score, proposal.margin});
#endif
    return lowSparseConfidence(proposal);
}

bool RankerHost::runLinkingAvailable() {
#ifdef LINKSCOPE_HAVE_TORCH
    return true;
#else
    return false;
#endif
}

QString RankerHost::rankerDescription() const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_) return QString::fromStdString(runRanker_->description());
#endif
    if (!sparseRanker_) return tr("exact names only, until the sparse ranker is built");
    return tr("sparse TF-IDF (character uni- and bigrams) over the homonym-expanded KB names");
}

void RankerHost::linkWithRun(const QString& runDirectory, curation::LinkMode mode) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (!project_ || !decisions_.isOpen()) return;
    cancelRunLinking();
    runWatcher_.waitForFinished();
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelRun_ = cancelled;
    curation::ModelCandidatesOptions options;
    options.run = runDirectory.toStdString();
    options.mode = mode;
    options.projectFile = decisions_.projectFile().toStdString();
    std::vector<project::Decision> decisions;
    for (const auto& [key, decision] : decisions_.decisionsInEffect()) decisions.push_back(decision);
    auto project = project_;
    // Its own pool, of one thread: close() and a new linkWithRun() wait for this job alone.
    runWatcher_.setFuture(QtConcurrent::run(
        &runPool_, [this, project, options, decisions, cancelled]() -> std::shared_ptr<curation::ModelCandidates> {
            lowerWorkerPriority();
            const ProgressSink progress = workerProgress(this, cancelled);
            try {
                return std::make_shared<curation::ModelCandidates>(project, options, decisions, progress);
            } catch (const Cancelled&) {
            } catch (const std::exception& error) {
                reportWorkerError(this, tr("Could not link with the run: %1"), error);
            }
            return nullptr;
        }));
#else
    Q_UNUSED(runDirectory);
    Q_UNUSED(mode);
    Q_EMIT errorOccurred(tr("This build has no LibTorch: it links with sparse TF-IDF only"));
#endif
}

void RankerHost::cancelRunLinking() {
    if (cancelRun_) cancelRun_->store(true);
}

void RankerHost::linkWithSparse() {
    cancelRunLinking();
    if (!runRanker_) return;
    runRanker_.reset();
    clearPendingRerank();
    if (sparseRanker_) Q_EMIT rankerReady();
    Q_EMIT proposalsReady();  // the sparse proposals, as far as they are ranked
    Q_EMIT sparseLinked();
}

void RankerHost::adoptRunRanker(std::shared_ptr<curation::ModelCandidates> runRanker) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (!runRanker) {
        Q_EMIT runLinkingCancelled();  // failed: errorOccurred said why
        return;
    }
    runRanker_ = std::move(runRanker);
    clearPendingRerank();
    // Decisions made or undone while it was built: the run took the ones in effect then.
    const auto& inEffect = decisions_.decisionsInEffect();
    for (const std::int64_t id : runRanker_->fedDecisions()) {
        const bool stillInEffect =
            std::any_of(inEffect.begin(), inEffect.end(), [id](const auto& entry) { return entry.second.id == id; });
        if (!stillInEffect) scheduleRerank(runRanker_->unfeed(id));
    }
    for (const auto& [key, decision] : inEffect) scheduleRerank(runRanker_->feed(decision));
    Q_EMIT rankerReady();
    Q_EMIT proposalsReady();
    Q_EMIT runLinked();
#else
    Q_UNUSED(runRanker);
#endif
}

void RankerHost::followDecision(const std::optional<project::Decision>& before,
                                const std::optional<project::Decision>& after) {
    if (before) unfeedRun(*before);
    if (after) feedRun(*after);
}

void RankerHost::feedRun(const project::Decision& decision) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (!runRanker_) return;
    try {
        changedByLast_.clear();
        scheduleRerank(runRanker_->feed(decision));
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(
            tr("The decision is saved, but the datastore did not take it: %1").arg(QString::fromUtf8(error.what())));
    }
#else
    Q_UNUSED(decision);
#endif
}

void RankerHost::unfeedRun(const project::Decision& decision) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_) {
        changedByLast_.clear();
        scheduleRerank(runRanker_->unfeed(decision.id));
    }
#else
    Q_UNUSED(decision);
#endif
}

void RankerHost::scheduleRerank(const std::vector<project::MentionKey>& mentions) {
    for (const project::MentionKey& key : mentions)
        if (pendingSet_.insert(key).second) pendingRerank_.push_back(key);
    if (pendingRerank_.empty() || rerankQueued_) return;
    rerankQueued_ = true;
    QTimer::singleShot(0, this, &RankerHost::rerankSome);
}

void RankerHost::rerankSome() {
    rerankQueued_ = false;
#ifdef LINKSCOPE_HAVE_TORCH
    if (!runRanker_) {
        clearPendingRerank();
        return;
    }
    const std::size_t count = std::min(kRerankBatch, pendingRerank_.size());
    const std::vector<project::MentionKey> batch(pendingRerank_.begin(),
                                                 pendingRerank_.begin() + static_cast<std::ptrdiff_t>(count));
    pendingRerank_.erase(pendingRerank_.begin(), pendingRerank_.begin() + static_cast<std::ptrdiff_t>(count));
    for (const project::MentionKey& key : batch) pendingSet_.erase(key);
    const curation::ProposalChanges changes = runRanker_->rerank(batch);
    if (!pendingRerank_.empty()) {
        rerankQueued_ = true;
        QTimer::singleShot(0, this, &RankerHost::rerankSome);
    }
    changedByLast_.insert(changedByLast_.end(), changes.topChanged.begin(), changes.topChanged.end());
    if (!changes.reranked.empty())
        Q_EMIT rankingsChanged(changes.reranked, static_cast<int>(changes.topChanged.size()));
#else
    clearPendingRerank();
#endif
}

void RankerHost::clearPendingRerank() {
    pendingRerank_.clear();
    pendingSet_.clear();
    changedByLast_.clear();  // another ranker or project: the list no longer says anything
}

const Mention* RankerHost::mentionOf(const project::MentionKey& key) const {
    if (!project_) return nullptr;
    for (const SplitCorpus& split : project_->splits) {
        if (split.split != key.split) continue;
        const Document* document = split.corpus.find(key.document);
        if (!document) return nullptr;
        for (const Mention& mention : document->mentions)
            if (mention.start == key.start && mention.end == key.end) return &mention;
    }
    return nullptr;
}

std::optional<std::map<project::MentionKey, std::size_t>> RankerHost::datastoreReachCounts() const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (runRanker_)
        return runRanker_->reachCounts([this](const project::MentionKey& key) { return decisions_.hasDecision(key); });
#endif
    return std::nullopt;
}

std::vector<RankerHost::MoveRef> RankerHost::datastoreMoves(const project::MentionKey& key, const std::string& entity) {
    std::vector<MoveRef> found;
#ifdef LINKSCOPE_HAVE_TORCH
    if (!runRanker_) return found;
    auto moves = runRanker_->wouldMove(key, entity);
    std::sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) { return a.mention < b.mention; });
    for (auto& move : moves) {
        if (decisions_.hasDecision(move.mention)) continue;
        if (const Mention* mention = mentionOf(move.mention))
            found.push_back({{std::move(move.mention), mention}, std::move(move.before), std::move(move.after)});
    }
#else
    (void)key;
    (void)entity;
#endif
    return found;
}

}  // namespace linkscope::ui
