#include "curation/run_review_linker.h"

#include <algorithm>

#include "curation/augmented_linker.h"
#include "curation/feedback_loop.h"
#include "curation/sparse_review_linker.h"
#include "curation/training_datastore.h"
#include "retrieval/datastore_reach.h"
#include "retrieval/knn_datastore.h"
#include "util/error.h"

namespace linkscope::curation {

namespace {

// The neighbours a link reads from the datastore: kNN-BioEL's k, the sieve's nearest key.
std::size_t neighboursRead(const AugmentedOptions& options) {
    return options.mode == LinkMode::Knn ? options.knn.k : 1;
}

std::vector<LinkTarget> targetsOf(std::span<const eval::EvalQuery> queries, const RunReviewLinker::InputFn& input,
                                  std::vector<std::vector<std::size_t>>& queryTargets,
                                  std::vector<std::size_t>& targetQuery) {
    std::vector<LinkTarget> targets;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const auto& query = queries[q];
        queryTargets.emplace_back();
        for (std::size_t part = 0; part < query.parts.size(); ++part) {
            queryTargets.back().push_back(targets.size());
            targetQuery.push_back(q);
            targets.push_back({query.document, query.start, query.end, query.parts[part], input(query, part)});
        }
    }
    return targets;
}

}  // namespace

struct RunReviewLinker::State {
    const AugmentedLinker* linker = nullptr;
    std::span<const eval::EvalQuery> queries;
    std::vector<std::vector<std::size_t>> queryTargets;
    std::vector<std::size_t> targetQuery;
    std::vector<std::string> surfaces;  // as reviewMentionsOf() writes them
    std::vector<std::vector<std::string>> others;
    std::vector<ReviewSignals> signals;
    std::unique_ptr<FeedbackLoop> loop;
    std::unique_ptr<retrieval::DatastoreReach> reach;  // null in model mode
    // Per query with a key (one part): the targets of OTHER queries above their initial
    // thresholds, ascending, with the cosine (thresholds only rise within a walk).
    std::vector<std::vector<std::pair<std::size_t, float>>> candidates;
    retrieval::KnnDatastore* datastore = nullptr;
    std::vector<std::uint64_t> added;  // keys decide() added, to take back on reset()

    void rankAll(const ProgressSink& progress) {
        const std::string stage = "Ranking mentions (run)";
        progress(stage, 0.0);
        constexpr std::size_t kBatch = 256;
        for (std::size_t first = 0; first < queries.size(); first += kBatch) {
            progress.checkCancelled();
            std::vector<std::size_t> batch;
            for (std::size_t q = first; q < std::min(first + kBatch, queries.size()); ++q) batch.push_back(q);
            rank(batch);
            progress(stage, static_cast<double>(first + batch.size()) / static_cast<double>(queries.size()));
        }
    }

    // For every query with a key, the targets of other queries its key would reach now.
    void findCandidates(const ProgressSink& progress) {
        candidates.assign(queries.size(), {});
        const std::size_t targetCount = loop->targets().size();
        for (std::size_t q = 0; q < queries.size(); ++q) {
            if (q % 64 == 0) progress.checkCancelled();
            if (queryTargets[q].size() != 1) continue;  // a composite adds no key
            const std::size_t key = queryTargets[q].front();
            for (std::size_t t = 0; t < targetCount; ++t) {
                if (targetQuery[t] == q) continue;
                const float cosine = reach->targetSimilarity(t, key);
                if (cosine > reach->threshold(t)) candidates[q].emplace_back(t, cosine);
            }
        }
    }

    void rank(std::span<const std::size_t> queryIndexes) {
        std::vector<std::size_t> targets;
        for (const std::size_t q : queryIndexes)
            targets.insert(targets.end(), queryTargets[q].begin(), queryTargets[q].end());
        const auto ranked = loop->predict(targets, 2);
        std::size_t at = 0;
        for (const std::size_t q : queryIndexes) {
            ReviewSignals next;
            bool first = true;
            bool ranksAll = !queryTargets[q].empty();
            for (std::size_t part = 0; part < queryTargets[q].size(); ++part, ++at) {
                const auto& rows = ranked[at];
                if (rows.empty()) {
                    ranksAll = false;
                    continue;
                }
                const double margin = rows.size() > 1 ? rows[0].score - rows[1].score : rows[0].score;
                next.margin = first ? margin : std::min(next.margin, margin);
                next.confidence = first ? rows[0].score : std::min(next.confidence, rows[0].score);
                if (!first) next.proposal += '|';
                next.proposal += linker->entityId(rows[0].entity);
                first = false;
            }
            if (!ranksAll) next = ReviewSignals{};  // a part without any candidate: no proposal
            next.confidence = std::clamp(next.confidence, 0.0, 1.0);
            for (const auto& other : others) next.others.push_back(other[q]);
            signals[q] = std::move(next);
        }
    }
};

RunReviewLinker::RunReviewLinker(const AugmentedLinker& linker, retrieval::KnnDatastore& datastore,
                                 std::span<const eval::EvalQuery> queries, const InputFn& input,
                                 std::vector<std::vector<std::string>> otherProposals, const ProgressSink& progress)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    for (const auto& other : otherProposals)
        if (other.size() != queries.size())
            throw Error("run review linker: another linker's proposals cover " + std::to_string(other.size()) +
                        " mentions, the walk has " + std::to_string(queries.size()));
    s.linker = &linker;
    s.queries = queries;
    s.others = std::move(otherProposals);
    for (const auto& mention : reviewMentionsOf(queries)) s.surfaces.push_back(mention.surface);
    s.signals.resize(queries.size());
    s.loop =
        std::make_unique<FeedbackLoop>(linker, datastore, targetsOf(queries, input, s.queryTargets, s.targetQuery));

    s.datastore = &datastore;
    s.rankAll(progress);
    if (linker.options().mode == LinkMode::Model || s.loop->targets().empty()) return;

    std::vector<float> vectors;
    for (std::size_t t = 0; t < s.loop->targets().size(); ++t) {
        const auto row = s.loop->vector(t);
        vectors.insert(vectors.end(), row.begin(), row.end());
    }
    s.reach = std::make_unique<retrieval::DatastoreReach>(datastore, vectors, neighboursRead(linker.options()));
    s.findCandidates(progress);
}

RunReviewLinker::~RunReviewLinker() = default;

std::size_t RunReviewLinker::size() const { return state_->signals.size(); }

ReviewSignals RunReviewLinker::signals(std::size_t mention) const {
    if (mention >= state_->signals.size())
        throw Error("run review linker: mention " + std::to_string(mention) + " of " +
                    std::to_string(state_->signals.size()));
    return state_->signals[mention];
}

std::size_t RunReviewLinker::reach(std::size_t mention, std::span<const std::uint8_t> decided,
                                   bool exceptIdentical) const {
    const State& s = *state_;
    if (!s.reach || mention >= s.candidates.size()) return 0;
    std::size_t count = 0;
    std::size_t lastQuery = s.queries.size();  // a query's parts are consecutive targets
    for (const auto& [t, cosine] : s.candidates[mention]) {
        const std::size_t q = s.targetQuery[t];
        if (q == lastQuery || !(cosine > s.reach->threshold(t))) continue;
        if ((!decided.empty() && decided[q]) || (exceptIdentical && s.surfaces[q] == s.surfaces[mention])) continue;
        lastQuery = q;
        ++count;
    }
    return count;
}

std::vector<std::size_t> RunReviewLinker::decide(std::size_t mention, std::span<const std::string> ids, bool accept) {
    State& s = *state_;
    if (mention >= s.signals.size())
        throw Error("run review linker: mention " + std::to_string(mention) + " of " +
                    std::to_string(s.signals.size()));
    if (!s.reach || s.queryTargets[mention].size() != 1) return {};
    const std::size_t target = s.queryTargets[mention].front();
    std::vector<std::size_t> reachedTargets;
    for (const std::string& id : ids) {
        if (!s.linker->findEntity(id)) continue;  // a gold id outside the dictionary cannot be linked to
        const auto effect = s.loop->record(target, id, accept ? DecisionKind::Accept : DecisionKind::Correct, false);
        if (effect.key) s.added.push_back(*effect.key);
        const auto reached = s.reach->keyAdded(s.loop->vector(target));
        reachedTargets.insert(reachedTargets.end(), reached.begin(), reached.end());
    }
    std::vector<std::size_t> changed;
    for (const std::size_t t : reachedTargets) changed.push_back(s.targetQuery[t]);
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    if (!changed.empty()) s.rank(changed);
    return changed;
}

void RunReviewLinker::reset() {
    State& s = *state_;
    if (s.added.empty()) return;
    for (const std::uint64_t key : s.added) s.datastore->remove(key);
    s.added.clear();
    std::vector<std::size_t> all(s.reach->size());
    for (std::size_t t = 0; t < all.size(); ++t) all[t] = t;
    s.reach->refresh(all);
    s.findCandidates({});
    s.rankAll({});
}

std::size_t RunReviewLinker::keysAdded() const noexcept { return state_->added.size(); }

}  // namespace linkscope::curation
