#include "curation/simulated_curation.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "curation/augmented_linker.h"
#include "curation/feedback_loop.h"
#include "curation/training_datastore.h"
#include "eval/gold_agreement.h"
#include "retrieval/knn_datastore.h"
#include "util/error.h"

namespace linkscope::curation {

namespace {

// Which targets (query parts) make up each query, and which queries each document.
struct Walk {
    std::vector<LinkTarget> targets;
    std::vector<std::vector<std::size_t>> queryTargets;
    std::vector<std::vector<std::size_t>> documentQueries;
};

Walk walkOf(std::span<const eval::EvalQuery> queries,
            const std::function<std::string(const eval::EvalQuery&, std::size_t)>& input) {
    Walk walk;
    std::unordered_map<std::string, std::size_t> documentIndex;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const auto& query = queries[q];
        const auto [it, added] = documentIndex.try_emplace(query.document, walk.documentQueries.size());
        if (added) walk.documentQueries.emplace_back();
        walk.documentQueries[it->second].push_back(q);
        walk.queryTargets.emplace_back();
        for (std::size_t part = 0; part < query.parts.size(); ++part) {
            walk.queryTargets.back().push_back(walk.targets.size());
            walk.targets.push_back({query.document, query.start, query.end, query.parts[part], input(query, part)});
        }
    }
    return walk;
}

double ratio(std::size_t correct, std::size_t total) {
    return total == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(total);
}

}  // namespace

CurationSimulation simulateCuration(const AugmentedLinker& linker, retrieval::KnnDatastore& datastore,
                                    std::span<const eval::EvalQuery> queries,
                                    const std::function<std::string(const eval::EvalQuery&, std::size_t)>& input,
                                    const CurationSimulationOptions& options) {
    if (options.evaluateEvery == 0) throw Error("simulated curation: evaluateEvery must be positive");
    const Walk walk = walkOf(queries, input);
    FeedbackLoop loop(linker, datastore, walk.targets);

    std::vector<std::size_t> all(walk.targets.size());
    for (std::size_t t = 0; t < all.size(); ++t) all[t] = t;
    options.progress("Simulating curation", 0.0);
    loop.prepare(all);

    // Whether each query is right, from the top entities of its targets (the lenient rule of eval/gold_agreement.h).
    const auto judge = [&](std::span<const std::size_t> queryIndexes) {
        std::vector<std::size_t> targets;
        for (const std::size_t q : queryIndexes)
            targets.insert(targets.end(), walk.queryTargets[q].begin(), walk.queryTargets[q].end());
        const auto ranked = loop.predict(targets, 1);
        std::unordered_map<std::size_t, std::string> top;
        for (std::size_t i = 0; i < targets.size(); ++i)
            top[targets[i]] = ranked[i].empty() ? std::string() : linker.entityId(ranked[i].front().entity);
        std::vector<std::uint8_t> right;
        std::vector<std::string_view> linked;
        for (const std::size_t q : queryIndexes) {
            linked.clear();
            for (const std::size_t t : walk.queryTargets[q]) linked.push_back(top[t]);
            right.push_back(eval::partsAgreeLeniently(linked, queries[q].goldIds) ? 1 : 0);
        }
        return right;
    };
    const auto remainingQueries = [&](std::size_t documentsDone) {
        std::vector<std::size_t> rest;
        for (std::size_t d = documentsDone; d < walk.documentQueries.size(); ++d)
            rest.insert(rest.end(), walk.documentQueries[d].begin(), walk.documentQueries[d].end());
        return rest;
    };

    // Without feedback nothing changes: one linking of everything says it all.
    std::vector<std::size_t> everyQuery(queries.size());
    for (std::size_t q = 0; q < everyQuery.size(); ++q) everyQuery[q] = q;
    const std::vector<std::uint8_t> baseline = judge(everyQuery);

    CurationSimulation simulation;
    simulation.documents = walk.documentQueries.size();
    simulation.mentions = queries.size();
    CurationStep step;
    step.remainingMentions = queries.size();
    const auto baselineOf = [&](std::span<const std::size_t> queryIndexes) {
        std::size_t correct = 0;
        for (const std::size_t q : queryIndexes) correct += baseline[q];
        return correct;
    };
    if (!queries.empty()) {
        const auto rest = remainingQueries(0);
        step.remainingWithout = ratio(baselineOf(rest), rest.size());
        step.remainingWithFeedback = step.remainingWithout;
    }
    simulation.steps.push_back(step);

    std::vector<std::uint64_t> added;
    std::size_t onlineCorrect = 0, baselineCorrect = 0;
    try {
        for (std::size_t d = 0; d < walk.documentQueries.size(); ++d) {
            options.progress.checkCancelled();
            const auto& document = walk.documentQueries[d];
            const auto right = judge(document);
            for (std::size_t i = 0; i < document.size(); ++i) {
                onlineCorrect += right[i];
                const std::size_t q = document[i];
                if (right[i]) continue;
                // The curator corrects the mention to its gold. A composite of several parts is
                // not fed: which part names which id is unknown (training_datastore.h).
                const auto ids = keyIds(queries[q]);
                if (ids.empty()) ++simulation.compositesNotFed;
                for (const auto& id : ids) {
                    if (!linker.findEntity(id)) continue;  // a gold id outside the dictionary cannot be linked to
                    const auto effect = loop.record(walk.queryTargets[q].front(), id, DecisionKind::Correct, false);
                    if (effect.key) added.push_back(*effect.key);
                }
            }
            baselineCorrect += baselineOf(document);

            CurationStep next;
            next.documentsDone = d + 1;
            next.mentionsDone = simulation.steps.back().mentionsDone + document.size();
            next.correctionsFed = added.size();
            next.remainingMentions = queries.size() - next.mentionsDone;
            next.onlineWithFeedback = ratio(onlineCorrect, next.mentionsDone);
            next.onlineWithout = ratio(baselineCorrect, next.mentionsDone);
            const bool evaluate =
                d == 0 || (d + 1) % options.evaluateEvery == 0 || d + 2 >= walk.documentQueries.size();
            if (next.remainingMentions > 0 && evaluate) {
                const auto rest = remainingQueries(d + 1);
                const auto restRight = judge(rest);
                next.remainingWithFeedback =
                    ratio(static_cast<std::size_t>(std::count(restRight.begin(), restRight.end(), 1)), rest.size());
                next.remainingWithout = ratio(baselineOf(rest), rest.size());
            }
            simulation.steps.push_back(next);
            options.progress("Simulating curation", ratio(d + 1, walk.documentQueries.size()));
        }
    } catch (...) {
        for (const auto key : added) datastore.remove(key);
        throw;
    }
    for (const auto key : added) datastore.remove(key);
    simulation.corrections = added.size();
    simulation.accuracyWithFeedback = ratio(onlineCorrect, queries.size());
    simulation.accuracyWithout = ratio(baselineCorrect, queries.size());
    return simulation;
}

}  // namespace linkscope::curation
