#include "curation_session.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QPromise>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent>

#include <algorithm>
#include <atomic>
#include <string_view>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "curation/exact_name_candidates.h"
#include "curation/proposal_ranking.h"
#include "curation/sparse_candidates.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include "curation/model_candidates.h"
#endif
#include "abbreviation_expansion.h"
#include "curation/adjudication.h"
#include "curation/curator_merge.h"
#include "decision_command.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "util/error.h"
#include "worker_priority.h"

namespace linkscope::ui {
namespace {

QString userName() {
    const QString name = qEnvironmentVariable("USER", qEnvironmentVariable("USERNAME"));
    return name.isEmpty() ? QStringLiteral("curator") : name;
}

}  // namespace

CurationSession::CurationSession(QObject* parent)
    : QObject(parent), undoStack_(new QUndoStack(this)), curator_(userName()) {
    modelPool_.setMaxThreadCount(1);
    connect(&modelWatcher_, &QFutureWatcherBase::finished, this, [this] {
        if (modelWatcher_.isCanceled() || modelWatcher_.future().resultCount() == 0) {
            Q_EMIT runLinkingCancelled();
            return;
        }
        adoptModel(modelWatcher_.result());
    });
    // Two results: the ranker as soon as it is built (candidates for the selected mention), then
    // the proposals of every mention (filters), which take a search per mention.
    // A merge ended: whatever it recorded is read back, a prefix of it when it stopped early.
    mergePool_.setMaxThreadCount(1);
    connect(&mergeWatcher_, &QFutureWatcherBase::finished, this, [this] {
        const MergeOutcome outcome = mergeWatcher_.future().resultCount() > 0 ? mergeWatcher_.result() : MergeOutcome{};
        merging_ = false;
        if (store_) {
            const std::map<project::MentionKey, project::Decision> before = current_;
            reloadDecisions();
            rebuildUndoStack();
            // A linked run's datastore takes the decisions now in effect, as after a decision:
            // the replaced one's key out, the new one's in.
            if (model_)
                for (const auto& [key, decision] : current_) {
                    const auto old = before.find(key);
                    if (old != before.end() && old->second.id == decision.id) continue;
                    if (old != before.end()) unfeedModel(old->second);
                    feedModel(decision);
                }
            Q_EMIT decisionsReloaded();
        }
        Q_EMIT mergeFinished(outcome.summary, outcome.error);
    });
    connect(&candidateWatcher_, &QFutureWatcherBase::resultReadyAt, this, [this](int index) {
        const Ranked ranked = candidateWatcher_.resultAt(index);
        if (ranked.candidates && !candidates_) {
            candidates_ = ranked.candidates;
            expansions_ = ranked.expansions;
            Q_EMIT candidatesReady();
        }
    });
}

CurationSession::~CurationSession() { close(); }

namespace {
// Progress of a worker, reported on the session's thread.
ProgressSink workerProgress(CurationSession* session, std::shared_ptr<std::atomic<bool>> cancelled) {
    ProgressSink progress;
    progress.report = [session](std::string_view stage, double fraction) {
        const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
        QMetaObject::invokeMethod(
            session,
            [session, text, fraction] { Q_EMIT session->candidatesProgress(text, static_cast<int>(fraction * 100)); },
            Qt::QueuedConnection);
    };
    progress.cancelled = [cancelled] { return cancelled->load(); };
    return progress;
}

// A worker's failure, reported on the session's thread; `what` holds %1 for the error's text.
void reportWorkerError(CurationSession* session, const QString& what, const std::exception& error) {
    const QString message = what.arg(QString::fromUtf8(error.what()));
    QMetaObject::invokeMethod(
        session, [session, message] { Q_EMIT session->errorOccurred(message); }, Qt::QueuedConnection);
}
}  // namespace

QString CurationSession::projectFileForManifest(const QString& manifestPath) {
    const QFileInfo manifest(manifestPath);
    const QByteArray hash =
        QCryptographicHash::hash(manifest.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(10);
    const QString folder =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/projects");
    QDir().mkpath(folder);
    return QStringLiteral("%1/%2-%3.linkscope").arg(folder, manifest.completeBaseName(), QString::fromLatin1(hash));
}

QString CurationSession::open(std::shared_ptr<const LoadedProject> project, const QString& projectFile) {
    close();
    try {
        const std::filesystem::path file = projectFile.toStdString();
        auto store = std::filesystem::exists(file) ? project::ProjectStore::open(file)
                                                   : project::ProjectStore::create(file, project->manifest);
        store_ = std::make_unique<project::ProjectStore>(std::move(store));
    } catch (const std::exception& error) {
        return QString::fromUtf8(error.what());
    }
    project_ = std::move(project);
    projectFile_ = projectFile;
    reloadDecisions();
    rebuildUndoStack();
    startCandidates();
    return {};
}

void CurationSession::close() {
    cancelMerge();
    mergeWatcher_.waitForFinished();  // its own pool: waits for the merge alone
    merging_ = false;
    cancelRunLinking();
    modelWatcher_.waitForFinished();  // its own pool: waits for this job alone
    model_.reset();
    clearPendingRerank();
    if (cancelCandidates_) cancelCandidates_->store(true);
    if (candidateWatcher_.isRunning()) {
        candidateWatcher_.cancel();  // the watcher then reports no result
        candidateWatcher_.waitForFinished();
    }
    undoStack_->clear();
    current_.clear();
    candidates_.reset();
    expansions_.reset();
    proposals_.clear();
    proposalsComplete_ = false;
    proposalRanking_.reset();
    store_.reset();
    project_.reset();
    projectFile_.clear();
}

void CurationSession::startCandidates() {
    auto project = project_;
    // The worker keeps the project alive; cancellation is polled between the build's stages
    // and between batches of proposals. The token also tells this session's batches from those
    // of a project closed since (its token is cancelled and no longer cancelCandidates_).
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelCandidates_ = cancelled;
    // Made here so that prioritizeDocument() can reach it at once; the worker ranks with it.
    auto ranking = std::make_shared<PendingRanking>();
    proposalRanking_ = ranking;
    candidateWatcher_.setFuture(
        QtConcurrent::run(&rankerPool_, [this, project, cancelled, ranking](QPromise<Ranked>& promise) {
            lowerWorkerPriority();
            const ProgressSink progress = workerProgress(this, cancelled);
            try {
                auto candidates = std::make_shared<const curation::SparseCandidates>(
                    *project->kb, /*homonymExpansion=*/true, progress);
                auto expansions = std::make_shared<std::map<project::MentionKey, std::string>>();
                for (const SplitCorpus& split : project->splits)
                    for (const Document& document : split.corpus.documents()) {
                        const auto definitions = abbreviationsOf(document);
                        for (const Mention& mention : document.mentions)
                            if (auto expanded = expandedMention(mention, definitions))
                                (*expansions)[{split.split, document.pmid(), mention.start, mention.end}] =
                                    std::move(expanded->text);
                    }
                promise.addResult(Ranked{candidates, expansions});
                // Every mention's proposal, a batch of whole documents at a time, each handed to the
                // GUI thread as it is ranked (core/curation/proposal_ranking.h): the documents the
                // curator opens first, the rest in project order.
                curation::ProposalRanking proposals(*project, *candidates, *expansions);
                ranking->start(proposals);
                const auto deliver = [this, cancelled](curation::ProposalRanking::Batch&& ranked) {
                    auto batch = std::make_shared<curation::ProposalRanking::Batch>(std::move(ranked));
                    QMetaObject::invokeMethod(
                        this,
                        [this, cancelled, batch] {
                            if (cancelled == cancelCandidates_ && !cancelled->load()) adoptProposals(*batch);
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
                        if (cancelled != cancelCandidates_ || cancelled->load()) return;
                        proposalsComplete_ = true;
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

void CurationSession::adoptProposals(const curation::ProposalRanking::Batch& batch) {
    std::vector<project::MentionKey> keys;
    keys.reserve(batch.size());
    for (const auto& [key, proposal] : batch) {
        proposals_[key] = Proposal{proposal.entity, proposal.score, proposal.margin};
        keys.push_back(key);
    }
    Q_EMIT proposalsRanked(keys);
}

void CurationSession::prioritizeDocument(const std::string& split, const std::string& document) {
    if (proposalRanking_) proposalRanking_->prioritize(split, document);
}

void CurationSession::PendingRanking::start(curation::ProposalRanking& ranking) {
    const std::lock_guard lock(mutex);
    running = &ranking;
    for (const auto& [split, document] : early) running->prioritize(split, document);
    early.clear();
}

void CurationSession::PendingRanking::stop() {
    const std::lock_guard lock(mutex);
    running = nullptr;
}

void CurationSession::PendingRanking::prioritize(const std::string& split, const std::string& document) {
    const std::lock_guard lock(mutex);
    if (running)
        running->prioritize(split, document);
    else
        early.emplace_back(split, document);
}

void CurationSession::reloadDecisions() {
    current_.clear();
    for (project::Decision& decision : store_->doneDecisions()) {
        const project::MentionKey key = decision.mention;
        current_[key] = std::move(decision);  // id order: the latest wins
    }
}

void CurationSession::rebuildUndoStack() {
    undoStack_->clear();
    const std::vector<project::Decision> history = store_->decisions();
    int undone = 0;
    std::vector<DecisionCommand*> commands;
    for (const project::Decision& decision : history) {
        if (decision.state == project::DecisionState::Discarded) continue;
        if (decision.state == project::DecisionState::Undone) ++undone;
        auto* command = DecisionCommand::restored(*this, decision);
        undoStack_->push(command);
        commands.push_back(command);
    }
    // Undone decisions are the newest (a new decision discards them), so they are the top of
    // the stack: undo them there without touching the store.
    for (int i = 0; i < undone; ++i) undoStack_->undo();
    for (DecisionCommand* command : commands) command->setReplaying(false);
    undoStack_->setClean();
}

std::vector<curation::CandidateRow> CurationSession::candidates(const project::MentionKey& key, const Mention& mention,
                                                                std::size_t k) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_ && model_->knows(key)) return model_->rank(key, k);
#endif
    if (candidates_) return candidates_->rank(sparseText(key, mention), k);
    // Until the ranker is built (a minute for a UMLS-size KB): the entities the text names exactly.
    if (project_ && project_->kb) return curation::exactNameCandidates(*project_->kb, mention.text, k);
    return {};
}

const std::string& CurationSession::sparseText(const project::MentionKey& key, const Mention& mention) const {
    if (expansions_)
        if (const auto found = expansions_->find(key); found != expansions_->end()) return found->second;
    return mention.text;
}

std::string CurationSession::proposedLink(const project::MentionKey& key, const Mention& mention,
                                          const std::vector<curation::CandidateRow>* ranked) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_)
        if (const auto* proposal = model_->proposal(key)) return proposal->entity;
    if (!model_)
#endif
        // Every mention's top, ranked once on the worker by the same ranker and text: not a new
        // search per call ("Apply to all" and the reach preview ask for ~175 mentions at once).
        if (const auto found = proposals_.find(key); found != proposals_.end()) return found->second.entity;
    // The first row of the same ranker's list is its top: the caller's list saves a second search
    // (at UMLS size a search is milliseconds, and the Candidates dock asks for both at once).
    if (ranked) return ranked->empty() ? std::string() : ranked->front().entity;
    const auto rows = candidates(key, mention, 1);
    return rows.empty() ? std::string() : rows.front().entity;
}

std::optional<CurationSession::Proposal> CurationSession::proposal(const project::MentionKey& key) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_)
        if (const auto* proposal = model_->proposal(key))
            return Proposal{proposal->entity, proposal->score, proposal->margin};
#endif
    return sparseProposal(key);
}

std::optional<CurationSession::Proposal> CurationSession::sparseProposal(const project::MentionKey& key) const {
    const auto found = proposals_.find(key);
    if (found == proposals_.end()) return std::nullopt;
    return found->second;
}

bool CurationSession::lowSparseConfidence(const Proposal& proposal) {
    return proposal.entity.empty() || proposal.score < 0.8 || proposal.margin < 0.02;
}

bool CurationSession::lowConfidence(const Proposal& proposal) const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_) return model_->lowConfidence({proposal.entity, proposal.score, proposal.margin});
#endif
    return lowSparseConfidence(proposal);
}

bool CurationSession::runLinkingAvailable() {
#ifdef LINKSCOPE_HAVE_TORCH
    return true;
#else
    return false;
#endif
}

QString CurationSession::rankerDescription() const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_) return QString::fromStdString(model_->description());
#endif
    if (!candidates_) return tr("exact names only, until the sparse ranker is built");
    return tr("sparse TF-IDF (character uni- and bigrams) over the homonym-expanded KB names");
}

void CurationSession::linkWithRun(const QString& runDirectory, curation::LinkMode mode) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (!project_ || !store_) return;
    cancelRunLinking();
    modelWatcher_.waitForFinished();
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelModel_ = cancelled;
    curation::ModelCandidatesOptions options;
    options.run = runDirectory.toStdString();
    options.mode = mode;
    options.projectFile = projectFile_.toStdString();
    std::vector<project::Decision> decisions;
    for (const auto& [key, decision] : current_) decisions.push_back(decision);
    auto project = project_;
    // Its own pool, of one thread: close() and a new linkWithRun() wait for this job alone.
    modelWatcher_.setFuture(QtConcurrent::run(
        &modelPool_, [this, project, options, decisions, cancelled]() -> std::shared_ptr<curation::ModelCandidates> {
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

void CurationSession::cancelRunLinking() {
    if (cancelModel_) cancelModel_->store(true);
}

void CurationSession::linkWithSparse() {
    cancelRunLinking();
    if (!model_) return;
    model_.reset();
    clearPendingRerank();
    if (candidates_) Q_EMIT candidatesReady();
    Q_EMIT proposalsReady();  // the sparse proposals, as far as they are ranked
    Q_EMIT sparseLinked();
}

void CurationSession::adoptModel(std::shared_ptr<curation::ModelCandidates> model) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (!model) {
        Q_EMIT runLinkingCancelled();  // failed: errorOccurred said why
        return;
    }
    model_ = std::move(model);
    clearPendingRerank();
    // Decisions made or undone while it was built: the model took the ones in effect then.
    for (const std::int64_t id : model_->fedDecisions()) {
        const bool inEffect =
            std::any_of(current_.begin(), current_.end(), [id](const auto& entry) { return entry.second.id == id; });
        if (!inEffect) scheduleRerank(model_->unfeed(id));
    }
    for (const auto& [key, decision] : current_) scheduleRerank(model_->feed(decision));
    Q_EMIT candidatesReady();
    Q_EMIT proposalsReady();
    Q_EMIT runLinked();
#else
    Q_UNUSED(model);
#endif
}

void CurationSession::feedModel(const project::Decision& decision) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (!model_) return;
    try {
        changedByLast_.clear();
        scheduleRerank(model_->feed(decision));
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(
            tr("The decision is saved, but the datastore did not take it: %1").arg(QString::fromUtf8(error.what())));
    }
#else
    Q_UNUSED(decision);
#endif
}

void CurationSession::unfeedModel(const project::Decision& decision) {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_) {
        changedByLast_.clear();
        scheduleRerank(model_->unfeed(decision.id));
    }
#else
    Q_UNUSED(decision);
#endif
}

namespace {
// Mentions ranked again per turn of the event loop. In kNN mode a mention reads its kept
// neighbour list (retrieval/neighbour_lists.h): a turn of 24 took at most 3.4 ms at MedMentions'
// size (benchmarks/model_linking, docs/benchmarks.md). A list searched again (after k undos took
// keys out of it), or the sieve, searches the datastore: against 208,000 keys a turn of 24 such
// mentions took 50 ms at p95 and 109 ms at most (at 19f00e3, when every undo made lists stale).
constexpr std::size_t kRerankBatch = 24;
}  // namespace

void CurationSession::scheduleRerank(const std::vector<project::MentionKey>& mentions) {
    for (const project::MentionKey& key : mentions)
        if (pendingSet_.insert(key).second) pendingRerank_.push_back(key);
    if (pendingRerank_.empty() || rerankQueued_) return;
    rerankQueued_ = true;
    QTimer::singleShot(0, this, &CurationSession::rerankSome);
}

void CurationSession::rerankSome() {
    rerankQueued_ = false;
#ifdef LINKSCOPE_HAVE_TORCH
    if (!model_) {
        clearPendingRerank();
        return;
    }
    const std::size_t count = std::min(kRerankBatch, pendingRerank_.size());
    const std::vector<project::MentionKey> batch(pendingRerank_.begin(),
                                                 pendingRerank_.begin() + static_cast<std::ptrdiff_t>(count));
    pendingRerank_.erase(pendingRerank_.begin(), pendingRerank_.begin() + static_cast<std::ptrdiff_t>(count));
    for (const project::MentionKey& key : batch) pendingSet_.erase(key);
    const curation::ProposalChanges changes = model_->rerank(batch);
    if (!pendingRerank_.empty()) {
        rerankQueued_ = true;
        QTimer::singleShot(0, this, &CurationSession::rerankSome);
    }
    changedByLast_.insert(changedByLast_.end(), changes.topChanged.begin(), changes.topChanged.end());
    if (!changes.reranked.empty())
        Q_EMIT rankingsChanged(changes.reranked, static_cast<int>(changes.topChanged.size()));
#else
    clearPendingRerank();
#endif
}

void CurationSession::clearPendingRerank() {
    pendingRerank_.clear();
    pendingSet_.clear();
    changedByLast_.clear();  // another ranker or project: the list no longer says anything
}

namespace {
// Ids as a sorted set, so "A|B" and "B|A" agree.
std::vector<std::string> idSet(std::string_view joined) {
    std::vector<std::string> ids;
    std::size_t start = 0;
    while (start <= joined.size()) {
        const std::size_t bar = joined.find('|', start);
        const std::string_view id =
            joined.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
        if (!id.empty()) ids.emplace_back(id);
        if (bar == std::string_view::npos) break;
        start = bar + 1;
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}
}  // namespace

CurationSession::DocumentReview CurationSession::review(const std::string& split, const Document& document) const {
    DocumentReview review;
    for (const Mention& mention : document.mentions) {
        ++review.mentions;
        const project::MentionKey key{split, document.pmid(), mention.start, mention.end};
        const auto decision = current_.find(key);
        const bool decided = decision != current_.end();
        if (decided) ++review.reviewed;
        const std::optional<Proposal> proposed = proposal(key);
        if (!decided && proposed && lowConfidence(*proposed)) ++review.lowConfidence;
        // The link in effect against the gold ids (CUI-less gold is "-1", like a NIL decision).
        std::string link;
        if (decided) {
            if (const auto decidedTo = project::decidedLink(decision->second))
                link = *decidedTo;
            else if (proposed)
                link = proposed->entity;
        } else if (proposed) {
            link = proposed->entity;
        } else {
            continue;  // nothing known yet
        }
        std::vector<std::string> gold = mention.ids.ids;
        if (mention.ids.cuiLess) gold = {"-1"};
        std::sort(gold.begin(), gold.end());
        if (idSet(link) != gold) ++review.disagreements;
    }
    return review;
}

int CurationSession::reviewedIn(const std::string& split) const {
    return static_cast<int>(std::count_if(current_.begin(), current_.end(),
                                          [&split](const auto& entry) { return entry.first.split == split; }));
}

std::optional<project::Decision> CurationSession::currentDecision(const project::MentionKey& key) const {
    const auto found = current_.find(key);
    if (found == current_.end()) return std::nullopt;
    return found->second;
}

std::string CurationSession::linkInEffect(const project::MentionKey& key, const Mention& mention,
                                          const std::vector<curation::CandidateRow>* ranked) const {
    if (const auto decision = currentDecision(key))
        if (const auto link = project::decidedLink(*decision)) return *link;
    return proposedLink(key, mention, ranked);
}

bool CurationSession::decide(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                             const std::string& newLink) {
    if (!store_) return false;
    project::Decision decision;
    decision.mention = key;
    decision.mentionText = mention.text;
    decision.kind = kind;
    decision.previousLink = linkInEffect(key, mention);
    if (kind == project::DecisionKind::Accept || kind == project::DecisionKind::Correct)
        decision.newLink = newLink.empty() ? decision.previousLink : newLink;
    else if (kind == project::DecisionKind::Nil)
        decision.newLink = "-1";
    decision.curator = curator_.toStdString();
    lastRecordStored_ = false;
    undoStack_->push(new DecisionCommand(*this, std::move(decision)));  // redo() stores it, or marks it obsolete
    return lastRecordStored_;
}

namespace {
QString surfaceKey(const std::string& text) { return QString::fromStdString(text).simplified().toCaseFolded(); }
}  // namespace

std::vector<CurationSession::MentionRef> CurationSession::sameSurface(const project::MentionKey& key,
                                                                      const Mention& mention,
                                                                      const std::string& link) const {
    std::vector<MentionRef> found;
    if (!project_) return found;
    const QString surface = surfaceKey(mention.text);
    for (const SplitCorpus& split : project_->splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& other : document.mentions) {
                if (surfaceKey(other.text) != surface) continue;
                project::MentionKey otherKey{split.split, document.pmid(), other.start, other.end};
                if (otherKey == key || current_.count(otherKey) > 0) continue;
                if (proposedLink(otherKey, other) == link) continue;
                found.push_back({std::move(otherKey), &other});
            }
    return found;
}

const Mention* CurationSession::mentionOf(const project::MentionKey& key) const {
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

std::optional<std::map<project::MentionKey, std::size_t>> CurationSession::datastoreReachCounts() const {
#ifdef LINKSCOPE_HAVE_TORCH
    if (model_) return model_->reachCounts([this](const project::MentionKey& key) { return current_.count(key) > 0; });
#endif
    return std::nullopt;
}

std::vector<CurationSession::MoveRef> CurationSession::datastoreMoves(const project::MentionKey& key,
                                                                      const std::string& entity) {
    std::vector<MoveRef> found;
#ifdef LINKSCOPE_HAVE_TORCH
    if (!model_) return found;
    auto moves = model_->wouldMove(key, entity);
    std::sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) { return a.mention < b.mention; });
    for (auto& move : moves) {
        if (current_.count(move.mention) > 0) continue;
        if (const Mention* mention = mentionOf(move.mention))
            found.push_back({{std::move(move.mention), mention}, std::move(move.before), std::move(move.after)});
    }
#else
    (void)key;
    (void)entity;
#endif
    return found;
}

int CurationSession::decideAll(const std::vector<MentionRef>& mentions, project::DecisionKind kind,
                               const std::string& newLink) {
    if (mentions.empty()) return 0;
    int stored = 0;
    undoStack_->beginMacro(tr("Apply to %n identical mention(s)", nullptr, static_cast<int>(mentions.size())));
    for (const MentionRef& ref : mentions)
        if (decide(ref.key, *ref.mention, kind, newLink)) ++stored;
    undoStack_->endMacro();
    return stored;
}

std::optional<project::Decision> CurationSession::storeRecord(const project::Decision& decision) {
    try {
        project::Decision stored = store_->record(decision);
        const auto replaced = currentDecision(stored.mention);
        current_[stored.mention] = stored;
        lastRecordStored_ = true;
        Q_EMIT decisionChanged(stored.mention);
        // The datastore follows the decisions in effect: the replaced one's keys go.
        if (replaced) unfeedModel(*replaced);
        feedModel(stored);
        return stored;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("The decision was not saved: %1").arg(QString::fromUtf8(error.what())));
        return std::nullopt;
    }
}

bool CurationSession::storeUndo(std::int64_t expectedId) {
    if (mergeUnderWay()) {
        // The store's latest decision may be an imported one; the stack is rebuilt at the end.
        Q_EMIT errorOccurred(tr("Undo waits for the merge under way to finish"));
        return false;
    }
    try {
        const auto undone = store_->undo();
        if (!undone || undone->id != expectedId)
            throw Error("the project file's undo history differs from the window's (was it changed elsewhere?)");
        reloadDecisions();
        Q_EMIT decisionChanged(undone->mention);
        unfeedModel(*undone);
        if (const auto back = currentDecision(undone->mention)) feedModel(*back);  // in effect again
        return true;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("Undo failed: %1").arg(QString::fromUtf8(error.what())));
        return false;
    }
}

bool CurationSession::storeRedo(std::int64_t expectedId) {
    if (mergeUnderWay()) {
        Q_EMIT errorOccurred(tr("Redo waits for the merge under way to finish"));
        return false;
    }
    try {
        const auto redone = store_->redo();
        if (!redone || redone->id != expectedId)
            throw Error("the project file's redo history differs from the window's (was it changed elsewhere?)");
        const auto replaced = currentDecision(redone->mention);
        current_[redone->mention] = *redone;
        Q_EMIT decisionChanged(redone->mention);
        if (replaced) unfeedModel(*replaced);
        feedModel(*redone);
        return true;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("Redo failed: %1").arg(QString::fromUtf8(error.what())));
        return false;
    }
}

// --- several curators (issue 18) ------------------------------------------------------------------

bool CurationSession::adjudicate(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                                 const std::string& newLink) {
    // The mark is the curator name (adjudication.h); the session's own name is kept for decide().
    const QString curator = curator_;
    curator_ = QString::fromStdString(curation::adjudicatorName(curator_.toStdString()));
    const bool stored = decide(key, mention, kind, newLink);
    curator_ = curator;
    return stored;
}

bool CurationSession::startMerge(const QString& file) {
    if (!store_ || merging_) return false;
    merging_ = true;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelMerge_ = cancelled;
    const std::filesystem::path into = projectFile_.toStdString();
    const std::filesystem::path from = file.toStdString();
    mergeWatcher_.setFuture(
        QtConcurrent::run(&mergePool_, [this, into, from, file, cancelled, project = project_]() -> MergeOutcome {
            ProgressSink progress;
            progress.report = [this](std::string_view, double fraction) {
                const int percent = static_cast<int>(fraction * 100);
                QMetaObject::invokeMethod(
                    this, [this, percent] { Q_EMIT mergeProgress(percent); }, Qt::QueuedConnection);
            };
            progress.cancelled = [cancelled] { return cancelled->load(); };
            try {
                // Its own connection: the GUI's store belongs to the GUI thread.
                auto target = project::ProjectStore::open(into);
                const auto source = project::ProjectStore::open(from);
                // The open project's corpora: a decision of the other file that names none of its
                // mentions refuses the merge (curation::MergeOptions::mentionExists). Built here, off
                // the GUI thread: a set of every mention of the project.
                curation::MergeOptions options;
                if (project) options.mentionExists = curation::mentionLookup(project->splits);
                const curation::MergeSummary merged = curation::mergeDecisions(target, source, options, progress);
                return {tr("Merged %n decision(s) from %1 (%2 already here); %3 disagreement(s) to adjudicate", nullptr,
                           static_cast<int>(merged.imported))
                            .arg(file)
                            .arg(merged.alreadyPresent)
                            .arg(merged.openDisagreements),
                        {}};
            } catch (const Cancelled&) {
                return {{}, tr("the merge was cancelled; the decisions merged before stay (merge again to go on)")};
            } catch (const std::exception& error) {
                return {{}, QString::fromUtf8(error.what())};
            }
        }));
    return true;
}

void CurationSession::cancelMerge() {
    if (cancelMerge_) cancelMerge_->store(true);
}

}  // namespace linkscope::ui
