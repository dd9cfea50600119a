// AugmentedLinker's sieve mode (curation/augmented_linker.h): Xu & Bethard's search strategies
// over the ontology's names (O), the datastore's keys (D) or both (OD), text by text (-T) or by
// concept vectors (-C), run as a sieve by retrieval/sieve.h.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "curation/augmented_linker_state.h"
#include "retrieval/knn_datastore.h"
#include "train/method_inputs.h"
#include "util/error.h"

namespace linkscope::curation {

using retrieval::EntityScore;

bool AugmentedLinker::State::needs(retrieval::SearchTarget target, retrieval::SearchUnit unit) const {
    return std::any_of(options.sieve.stages.begin(), options.sieve.stages.end(),
                       [&](const retrieval::SearchStrategy& s) { return s.target == target && s.unit == unit; });
}

void AugmentedLinker::State::buildOntologySpaces() {
    if (options.mode != LinkMode::Sieve) return;
    using retrieval::SearchTarget;
    using retrieval::SearchUnit;
    const bool text = needs(SearchTarget::Ontology, SearchUnit::Text) || needs(SearchTarget::Both, SearchUnit::Text);
    const bool concepts =
        needs(SearchTarget::Ontology, SearchUnit::Concept) || needs(SearchTarget::Both, SearchUnit::Concept);
    if (!text && !concepts) return;
    const auto vectors = model->entryVectors();
    if (vectors.size() != dictionary->size() * dimension)
        throw Error("sieve search: the method (" + std::string(train::methodName(model->preset().method)) +
                    ") has no vectors of the dictionary's names to search (a prototype-srn with a sparse first "
                    "stage compares mentions with entity inputs only; above a million names the vectors live "
                    "only in the linker's compact index: use kNN linking there)");
    const auto rows = normalizedRows(vectors.subspan(0, ontologyEntries * dimension), dimension);
    if (text) {
        std::vector<std::vector<std::uint32_t>> rowEntities(
            entryEntities.begin(), entryEntities.begin() + static_cast<std::ptrdiff_t>(ontologyEntries));
        ontologyText.build(rows, dimension, std::move(rowEntities));
    }
    ontologySums.assign(entityIds.size() * dimension, 0.0f);
    ontologyCounts.assign(entityIds.size(), 0);
    for (std::size_t e = 0; e < ontologyEntries; ++e)
        for (const std::uint32_t entity : entryEntities[e]) {
            ++ontologyCounts[entity];
            for (std::size_t d = 0; d < dimension; ++d) ontologySums[entity * dimension + d] += rows[e * dimension + d];
        }
    if (needs(SearchTarget::Ontology, SearchUnit::Concept)) {
        std::vector<float> means;
        std::vector<std::vector<std::uint32_t>> rowEntities;
        for (std::uint32_t entity = 0; entity < entityIds.size(); ++entity) {
            if (ontologyCounts[entity] == 0) continue;
            const auto sum = std::span<const float>(ontologySums).subspan(entity * dimension, dimension);
            means.insert(means.end(), sum.begin(), sum.end());
            normalizeRow(std::span<float>(means).subspan(means.size() - dimension, dimension));
            rowEntities.push_back({entity});
        }
        ontologyConcepts.build(means, dimension, std::move(rowEntities));
    }
}

// Sieve mode's fixed part: the ontology's names never change while curators decide, so each
// mention's nearest O names (modelDepth rows, as entries with their cosine) are searched once
// and kept as its "model list"; the O-T stages read them instead of searching every name again
// each time a decision re-ranks the mentions it reached (that search was nearly all of a turn's
// time on the GUI thread: see benchmarks/ui_stall). Empty lists when no stage reads O-T.
std::vector<ModelList> AugmentedLinker::State::ontologyTextLists(std::span<const float> vectors) const {
    const std::size_t count = dimension == 0 ? 0 : vectors.size() / dimension;
    std::vector<ModelList> lists(count);
    if (ontologyText.empty() || count == 0) return lists;
    const auto queries = normalizedRows(vectors, dimension);
    const auto found = ontologyText.index->search(queries, std::min(options.modelDepth, ontologyText.index->size()));
    for (std::size_t q = 0; q < count; ++q)
        for (const auto& row : found[q]) {
            const float cosine = std::clamp(row.score, -1.0f, 1.0f);
            lists[q].push_back({row.entry, cosine, cosine, 0.0f});
        }
    return lists;
}

// The O-T stage's best k distinct entities of each query: from its kept list (above) when the
// list names k of them or holds every name, else searched (a list given empty, or a mention
// whose nearest modelDepth names are synonyms of fewer than k concepts).
std::vector<std::vector<EntityScore>> AugmentedLinker::State::ontologyTextResults(std::span<const float> queries,
                                                                                  std::span<const ModelList> lists,
                                                                                  std::size_t k) const {
    const std::size_t count = queries.size() / dimension;
    std::vector<std::vector<EntityScore>> out(count);
    if (ontologyText.empty()) return out;
    std::vector<std::size_t> searchAgain;
    for (std::size_t q = 0; q < count; ++q) {
        const ModelList* list = q < lists.size() ? &lists[q] : nullptr;
        if (!list || list->empty()) {
            searchAgain.push_back(q);
            continue;
        }
        std::vector<EntityScore> hits;
        for (const auto& row : *list)
            for (const std::uint32_t entity : ontologyText.rowEntities[row.entry]) hits.push_back({entity, row.score});
        out[q] = distinctTop(std::move(hits), k);
        if (out[q].size() < k && list->size() < ontologyText.index->size()) searchAgain.push_back(q);
    }
    if (searchAgain.empty()) return out;
    std::vector<float> batch;
    batch.reserve(searchAgain.size() * dimension);
    for (const std::size_t q : searchAgain)
        batch.insert(batch.end(), queries.begin() + static_cast<std::ptrdiff_t>(q * dimension),
                     queries.begin() + static_cast<std::ptrdiff_t>((q + 1) * dimension));
    auto searched = ontologyText.search(batch, dimension, k);
    for (std::size_t i = 0; i < searchAgain.size(); ++i) out[searchAgain[i]] = std::move(searched[i]);
    return out;
}

AugmentedLinker::State::DataSpaces AugmentedLinker::State::dataSpaces() const {
    using retrieval::SearchTarget;
    using retrieval::SearchUnit;
    DataSpaces spaces;
    spaces.entities = datastoreEntities();
    if (!datastore) return spaces;
    if (needs(SearchTarget::Data, SearchUnit::Concept) || needs(SearchTarget::Both, SearchUnit::Concept)) {
        std::vector<float> sums(entityIds.size() * dimension, 0.0f);
        std::vector<std::uint32_t> counts(entityIds.size(), 0);
        const auto keys = datastore->keys();
        const auto vectors = datastore->keyVectors();
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::uint32_t entity = spaces.entities[keys[i].entity];
            if (entity == kNoEntity) continue;
            ++counts[entity];
            for (std::size_t d = 0; d < dimension; ++d) sums[entity * dimension + d] += vectors[i * dimension + d];
        }
        const auto meansOf = [&](bool withOntology) {
            std::vector<float> means;
            std::vector<std::vector<std::uint32_t>> rowEntities;
            for (std::uint32_t entity = 0; entity < entityIds.size(); ++entity) {
                const std::uint32_t own = withOntology ? ontologyCounts[entity] : 0;
                if (counts[entity] + own == 0) continue;
                for (std::size_t d = 0; d < dimension; ++d)
                    means.push_back(sums[entity * dimension + d] +
                                    (withOntology ? ontologySums[entity * dimension + d] : 0.0f));
                normalizeRow(std::span<float>(means).subspan(means.size() - dimension, dimension));
                rowEntities.push_back({entity});
            }
            EntityVectorSpace space;
            space.build(means, dimension, std::move(rowEntities));
            return space;
        };
        if (needs(SearchTarget::Data, SearchUnit::Concept)) spaces.concepts = meansOf(false);
        if (needs(SearchTarget::Both, SearchUnit::Concept)) spaces.both = meansOf(true);
    }
    if (options.sieve.exactMatch)
        for (const auto& key : datastore->keys())
            if (spaces.entities[key.entity] != kNoEntity)
                spaces.keysByText[key.source].push_back(
                    {spaces.entities[key.entity], key.origin != retrieval::KeyOrigin::Training});
    return spaces;
}

bool AugmentedLinker::State::isCurated(std::uint64_t key) const {
    const auto info = datastore->info(key);
    return info && info->origin != retrieval::KeyOrigin::Training;
}

/// D-T: the nearest keys' entities, distinct, best first. Keys of one text often disagree
/// (a training text linked to different concepts in different documents) and tie exactly:
/// among entities at the same similarity, a curator's decision comes first (the curator has
/// just said what this text means here), then the one with more keys, a majority vote Xu &
/// Bethard leave open.
std::vector<std::vector<EntityScore>> AugmentedLinker::State::searchKeys(
    std::span<const std::vector<retrieval::DatastoreNeighbor>> found, const DataSpaces& spaces, std::size_t k) const {
    const std::size_t count = found.size();
    std::vector<std::vector<EntityScore>> out(count);
    for (std::size_t q = 0; q < count; ++q) {
        struct Vote {
            std::uint32_t entity;
            float similarity;
            std::size_t curated;  ///< keys of curator decisions at that similarity
            std::size_t keys;
        };
        std::vector<Vote> votes;
        std::unordered_map<std::uint32_t, std::size_t> position;
        for (const auto& neighbor : found[q]) {
            const std::uint32_t entity = spaces.entities[neighbor.entity];
            if (entity == kNoEntity) continue;
            const auto [it, added] = position.try_emplace(entity, votes.size());
            if (added) votes.push_back({entity, neighbor.similarity, 0, 0});
            Vote& vote = votes[it->second];
            if (neighbor.similarity != vote.similarity) continue;  // found best first: only ties at the best count
            ++vote.keys;
            if (isCurated(neighbor.key)) ++vote.curated;
        }
        std::stable_sort(votes.begin(), votes.end(), [](const Vote& a, const Vote& b) {
            if (a.similarity != b.similarity) return a.similarity > b.similarity;
            return a.curated != b.curated ? a.curated > b.curated : a.keys > b.keys;
        });
        for (const auto& vote : votes) {
            if (out[q].size() == k) break;
            out[q].push_back({vote.entity, vote.similarity});
        }
    }
    return out;
}

std::vector<EntityScore> AugmentedLinker::State::exactMatches(std::string_view text, const DataSpaces& spaces) const {
    // Entities by the curator's decisions on the text, then by how many names and keys spell
    // it, then by first appearance (as searchKeys orders ties).
    std::vector<std::uint32_t> order;
    std::unordered_map<std::uint32_t, std::pair<std::size_t, std::size_t>> votes;  // curated, all
    const auto vote = [&](std::uint32_t entity, bool curated) {
        auto& [curatedVotes, all] = votes[entity];
        if (all++ == 0) order.push_back(entity);
        curatedVotes += curated ? 1 : 0;
    };
    if (const auto it = entriesByName.find(text); it != entriesByName.end())
        for (const std::uint32_t entry : it->second)
            if (entry < ontologyEntries)
                for (const std::uint32_t entity : entryEntities[entry]) vote(entity, false);
    if (const auto it = spaces.keysByText.find(std::string(text)); it != spaces.keysByText.end())
        for (const auto& key : it->second) vote(key.entity, key.curated);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return votes.at(a) > votes.at(b); });
    std::vector<EntityScore> out;
    for (const std::uint32_t entity : order) out.push_back({entity, 1.0f});
    return out;
}

std::vector<std::vector<RankedEntity>> AugmentedLinker::State::sieve(
    std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> lists,
    std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const {
    using retrieval::SearchTarget;
    using retrieval::SearchUnit;
    const std::size_t count = inputs.size();
    const auto queries = normalizedRows(vectors, dimension);
    const DataSpaces spaces = dataSpaces();

    // The nearest keys, searched once for the batch when the first D-T or OD-T stage needs
    // them (both read them). The vectors as given, not `queries`: the search normalizes them
    // itself, so its similarities are the ones a caller's own search of `vectors` gives.
    std::optional<std::vector<std::vector<retrieval::DatastoreNeighbor>>> keyHits;
    const auto nearestKeys = [&]() -> const std::vector<std::vector<retrieval::DatastoreNeighbor>>& {
        if (!keyHits) {
            keyHits.emplace(count);
            // Keys repeat entities (a concept's many mentions): deep enough for k distinct
            // ones and for the votes of a frequent text.
            if (datastore && datastore->size() > 0)
                *keyHits = datastore->search(vectors, std::min(datastore->size(), std::max<std::size_t>(k * 8, 64)));
        }
        return *keyHits;
    };

    // Each strategy searched once for the whole batch, when the first query needs it.
    std::unordered_map<std::string, std::vector<std::vector<EntityScore>>> searched;
    const auto resultsOf =
        [&](const retrieval::SearchStrategy& strategy) -> const std::vector<std::vector<EntityScore>>& {
        const std::string name = retrieval::strategyName(strategy);
        if (const auto it = searched.find(name); it != searched.end()) return it->second;
        std::vector<std::vector<EntityScore>> results;
        if (strategy.unit == SearchUnit::Concept) {
            const EntityVectorSpace& space = strategy.target == SearchTarget::Ontology ? ontologyConcepts
                                             : strategy.target == SearchTarget::Data   ? spaces.concepts
                                                                                       : spaces.both;
            results = space.search(queries, dimension, k);
        } else if (strategy.target == SearchTarget::Ontology) {
            results = ontologyTextResults(queries, lists, k);
        } else if (strategy.target == SearchTarget::Data) {
            results = searchKeys(nearestKeys(), spaces, k);
        } else {
            const auto names = ontologyTextResults(queries, lists, k);
            auto keys = searchKeys(nearestKeys(), spaces, k);
            for (std::size_t q = 0; q < count; ++q) {
                keys[q].insert(keys[q].end(), names[q].begin(), names[q].end());
                keys[q] = distinctTop(std::move(keys[q]), k);
            }
            results = std::move(keys);
        }
        return searched.emplace(name, std::move(results)).first->second;
    };

    std::vector<std::vector<RankedEntity>> out(count);
    for (std::size_t q = 0; q < count; ++q) {
        const auto inside = train::mentionInsideMarkers(inputs[q], model->preset().markers);
        const std::string text(inside.value_or(std::string_view(inputs[q])));
        const auto outcome = retrieval::runSieve(
            options.sieve, [&] { return exactMatches(text, spaces); },
            [&](const retrieval::SearchStrategy& strategy) { return resultsOf(strategy)[q]; });
        for (const auto& hit : outcome.ranked) {
            if (out[q].size() == k) break;
            RankedEntity ranked;
            ranked.entity = hit.entity;
            ranked.entry = representative[hit.entity];
            ranked.score = hit.score;
            ranked.sieveStage = static_cast<int>(outcome.stage);
            out[q].push_back(ranked);
        }
    }
    // The nearest key of each input, when a stage searched the keys for this batch.
    if (neighbors && keyHits) {
        neighbors->resize(count);
        for (std::size_t q = 0; q < count; ++q)
            if (!(*keyHits)[q].empty()) (*neighbors)[q].assign(1, (*keyHits)[q].front());
    }
    return out;
}

}  // namespace linkscope::curation
