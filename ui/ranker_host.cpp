#include "ranker_host.h"

#include <QTimer>

#include <algorithm>
#include <string_view>

#include "abbreviation_expansion.h"
#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "curation/exact_name_candidates.h"
#include "curation/sparse_candidates.h"
#include "dense_engine.h"
#include "dense_engine_loader.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

// Progress of a worker, reported on the host's thread as rankerProgress.
ProgressSink workerProgress(RankerHost* host, const JobContext& context) {
    ProgressSink progress;
    progress.report = [host, &context](std::string_view stage, double fraction) {
        const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
        context.post([host, text, fraction] { Q_EMIT host->rankerProgress(text, static_cast<int>(fraction * 100)); });
    };
    progress.cancelled = [&context] { return context.isCancelled(); };
    return progress;
}

// Mentions ranked again per turn of the event loop: in kNN mode a mention reads its kept
// neighbour list (retrieval/neighbour_lists.h); a list searched again (after undos took keys out
// of it), or the sieve, searches the datastore. The batch keeps a turn short at MedMentions' size
// (benchmarks/model_linking).
constexpr std::size_t kRerankBatch = 24;

}  // namespace

RankerHost::RankerHost(const DecisionLog& decisions, QObject* parent) : QObject(parent), decisions_(decisions) {
    connect(&decisions_, &DecisionLog::decisionInEffectReplaced, this, &RankerHost::followDecision);
    connect(&sparseJob_, &BackgroundJob::failed, this, [this](const QString& message) {
        Q_EMIT errorOccurred(tr("Could not rank the candidates: %1").arg(message));
    });
    connect(&runJob_, &BackgroundJob::cancelled, this, &RankerHost::runLinkingCancelled);
    connect(&runJob_, &BackgroundJob::failed, this, [this](const QString& message) {
        Q_EMIT errorOccurred(tr("Could not link with the run: %1").arg(message));
        Q_EMIT runLinkingCancelled();
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
    runJob_.waitForFinished();  // waits for this job alone
    runRanker_.reset();
    clearPendingRerank();
    sparseJob_.cancel();  // nothing of it reaches the host any more
    sparseJob_.waitForFinished();
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
    // and between batches of proposals. Nothing of a cancelled or replaced run reaches the host
    // (JobContext::post): the batches of a project closed since are dropped.
    // Made here so that prioritizeDocument() can reach it at once; the worker ranks with it.
    auto ranking = std::make_shared<PendingRanking>();
    proposalRanking_ = ranking;
    const auto rank = [this, project, ranking](const JobContext& context) {
        const ProgressSink progress = workerProgress(this, context);
        auto ranker =
            std::make_shared<const curation::SparseCandidates>(*project->kb, /*homonymExpansion=*/true, progress);
        auto expansions = std::make_shared<std::map<project::MentionKey, std::string>>();
        for (const SplitCorpus& split : project->splits)
            for (const Document& document : split.corpus.documents()) {
                const auto definitions = abbreviationsOf(document);
                for (const Mention& mention : document.mentions)
                    if (auto expanded = expandedMention(mention, definitions))
                        (*expansions)[{split.split, document.pmid(), mention.start, mention.end}] =
                            std::move(expanded->text);
            }
        // The ranker as soon as it is built (candidates for the selected mention); the proposals
        // of every mention follow in batches, each queued to the host on its own, so that no batch
        // waits for the end of the work.
        context.post([this, built = SparseBuilt{ranker, expansions}] {
            if (built.ranker && !sparseRanker_) {
                sparseRanker_ = built.ranker;
                expansions_ = built.expansions;
                Q_EMIT rankerReady();
            }
        });
        // Every mention's proposal, a batch of whole documents at a time, each handed to the
        // GUI thread as it is ranked (core/curation/proposal_ranking.h): the documents the
        // curator opens first, the rest in project order.
        curation::ProposalRanking proposals(*project, *ranker, *expansions);
        ranking->start(proposals);
        const auto deliver = [this, &context](curation::ProposalRanking::Batch&& ranked) {
            auto batch = std::make_shared<curation::ProposalRanking::Batch>(std::move(ranked));
            context.post([this, batch] { adoptSparseProposals(*batch); });
        };
        try {
            proposals.run(deliver, progress);
        } catch (...) {
            ranking->stop();
            throw;
        }
        ranking->stop();
        context.post([this] {
            sparseProposalsComplete_ = true;
            Q_EMIT proposalsComplete();
        });
        progress("Every mention ranked", 1.0);
    };
    sparseJob_.start(rank, [] {});
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
    if (runRanker_ && runRanker_->knows(key)) return runRanker_->rank(key, k);
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
    if (runRanker_) {
        if (const auto proposal = runRanker_->proposal(key)) return proposal->entity;
    } else if (const auto found = sparseProposals_.find(key); found != sparseProposals_.end()) {
        // Every mention's top, ranked once on the worker by the same ranker and text: not a new
        // search per call ("Apply to all" and the reach preview ask for many mentions at once).
        return found->second.entity;
    }
    // The first row of the same ranker's list is its top: the caller's list saves a second search
    // (the Candidates dock asks for both at once).
    if (ranked) return ranked->empty() ? std::string() : ranked->front().entity;
    const auto rows = rankCandidates(key, mention, 1);
    return rows.empty() ? std::string() : rows.front().entity;
}

std::optional<RankerHost::Proposal> RankerHost::proposal(const project::MentionKey& key) const {
    if (runRanker_)
        if (const auto proposal = runRanker_->proposal(key))
            return Proposal{proposal->entity, proposal->score, proposal->margin};
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
    if (runRanker_) return runRanker_->lowConfidence({proposal.entity, proposal.score, proposal.margin});
    return lowSparseConfidence(proposal);
}

bool RankerHost::runLinkingAvailable() { return DenseEngineLoader::installed(); }

QString RankerHost::rankerDescription() const {
    if (runRanker_) return QString::fromStdString(runRanker_->description());
    if (!sparseRanker_) return tr("exact names only, until the sparse ranker is built");
    return tr("sparse TF-IDF (character uni- and bigrams) over the homonym-expanded KB names");
}

void RankerHost::linkWithRun(const QString& runDirectory, curation::LinkMode mode) {
    if (!DenseEngineLoader::installed()) {
        // As a failed linking ends: whoever waits for the outcome (the screenshot tour) stops.
        Q_EMIT errorOccurred(DenseEngineLoader::missingMessage());
        Q_EMIT runLinkingCancelled();
        return;
    }
    if (!project_ || !decisions_.isOpen()) return;
    cancelRunLinking();
    runJob_.waitForFinished();
    RunLinkRequest request;
    request.run = runDirectory.toStdString();
    request.mode = mode;
    request.projectFile = decisions_.projectFile().toStdString();
    std::vector<project::Decision> decisions;
    for (const auto& [key, decision] : decisions_.decisionsInEffect()) decisions.push_back(decision);
    auto project = project_;
    // A job of its own: close() and a new linkWithRun() wait for this job alone. The first run
    // of the process loads the dense engine (LibTorch) on this job's worker.
    runJob_.start(
        [this, project, request, decisions](const JobContext& context) {
            const ProgressSink progress = workerProgress(this, context);
            progress("Loading the dense engine (LibTorch)", 0.0);
            DenseEngine& engine = DenseEngineLoader::load();
            context.checkCancelled();
            return engine.linkRun(project, request, decisions, progress);
        },
        [this](std::shared_ptr<RunRanker> ranker) { adoptRunRanker(std::move(ranker)); });
}

void RankerHost::cancelRunLinking() { runJob_.cancel(); }

void RankerHost::linkWithSparse() {
    cancelRunLinking();
    if (!runRanker_) return;
    runRanker_.reset();
    clearPendingRerank();
    if (sparseRanker_) Q_EMIT rankerReady();
    Q_EMIT proposalsReady();  // the sparse proposals, as far as they are ranked
    Q_EMIT sparseLinked();
}

void RankerHost::adoptRunRanker(std::shared_ptr<RunRanker> runRanker) {
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
}

void RankerHost::followDecision(const std::optional<project::Decision>& before,
                                const std::optional<project::Decision>& after) {
    if (before) unfeedRun(*before);
    if (after) feedRun(*after);
}

void RankerHost::feedRun(const project::Decision& decision) {
    if (!runRanker_) return;
    try {
        changedByLast_.clear();
        scheduleRerank(runRanker_->feed(decision));
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(
            tr("The decision is saved, but the datastore did not take it: %1").arg(QString::fromUtf8(error.what())));
    }
}

void RankerHost::unfeedRun(const project::Decision& decision) {
    if (runRanker_) {
        changedByLast_.clear();
        scheduleRerank(runRanker_->unfeed(decision.id));
    }
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
    if (!runRanker_) {
        clearPendingRerank();
        return;
    }
    const std::size_t count = std::min(kRerankBatch, pendingRerank_.size());
    const std::vector<project::MentionKey> batch(pendingRerank_.begin(),
                                                 pendingRerank_.begin() + static_cast<std::ptrdiff_t>(count));
    pendingRerank_.erase(pendingRerank_.begin(), pendingRerank_.begin() + static_cast<std::ptrdiff_t>(count));
    for (const project::MentionKey& key : batch) pendingSet_.erase(key);
    const RunRanker::Changes changes = runRanker_->rerank(batch);
    if (!pendingRerank_.empty()) {
        rerankQueued_ = true;
        QTimer::singleShot(0, this, &RankerHost::rerankSome);
    }
    changedByLast_.insert(changedByLast_.end(), changes.topChanged.begin(), changes.topChanged.end());
    if (!changes.reranked.empty())
        Q_EMIT rankingsChanged(changes.reranked, static_cast<int>(changes.topChanged.size()));
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
    if (runRanker_)
        return runRanker_->reachCounts([this](const project::MentionKey& key) { return decisions_.hasDecision(key); });
    return std::nullopt;
}

std::vector<RankerHost::MoveRef> RankerHost::datastoreMoves(const project::MentionKey& key, const std::string& entity) {
    std::vector<MoveRef> found;
    if (!runRanker_) return found;
    auto moves = runRanker_->wouldMove(key, entity);
    std::sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) { return a.mention < b.mention; });
    for (auto& move : moves) {
        if (decisions_.hasDecision(move.mention)) continue;
        if (const Mention* mention = mentionOf(move.mention))
            found.push_back({{std::move(move.mention), mention}, std::move(move.before), std::move(move.after)});
    }
    return found;
}

}  // namespace linkscope::ui
