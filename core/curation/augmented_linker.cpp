#include "curation/augmented_linker.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "retrieval/dense_index.h"
#include "retrieval/knn_datastore.h"
#include "train/method_inputs.h"
#include "util/error.h"

namespace linkscope::curation {

namespace {

using retrieval::EntityScore;

constexpr std::uint32_t kNoEntity = std::numeric_limits<std::uint32_t>::max();

void normalize(std::span<float> row) noexcept {
    double norm = 0.0;
    for (const float x : row) norm += double{x} * x;
    if (norm <= 0.0) return;
    const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : row) x *= scale;
}

std::vector<float> normalizedRows(std::span<const float> rows, std::size_t dimension) {
    std::vector<float> out(rows.begin(), rows.end());
    for (std::size_t start = 0; start + dimension <= out.size(); start += dimension)
        normalize(std::span<float>(out).subspan(start, dimension));
    return out;
}

// Keeps each entity's first (best) appearance, at most k of them, best first. Equal scores keep
// the order they came in: the search's own tie order (rows ascending; for keys, the votes of
// searchKeys), and for OD the training data's before the ontology's.
std::vector<EntityScore> distinctTop(std::vector<EntityScore> ranked, std::size_t k) {
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const EntityScore& a, const EntityScore& b) { return a.score > b.score; });
    std::vector<EntityScore> out;
    std::unordered_set<std::uint32_t> seen;
    for (const auto& hit : ranked) {
        if (out.size() == k) break;
        if (seen.insert(hit.entity).second) out.push_back(hit);
    }
    return out;
}

// A searchable set of unit vectors, each standing for one entity (a -C space, or O-T rows
// mapped through their entries).
struct VectorSpace {
    std::optional<retrieval::DenseIndex> index;
    std::vector<std::vector<std::uint32_t>> rowEntities;  ///< the entities each row stands for

    bool empty() const noexcept { return !index || index->size() == 0; }

    void build(std::span<const float> rows, std::size_t dimension, std::vector<std::vector<std::uint32_t>> entities) {
        rowEntities = std::move(entities);
        index.reset();
        if (!rowEntities.empty()) index = retrieval::DenseIndex::build(rows, dimension, "sieve search space");
    }

    /// The best k distinct entities for each (normalized) query, deepening the search when a
    /// row's entities repeat (the synonyms of one concept).
    std::vector<std::vector<EntityScore>> search(std::span<const float> queries, std::size_t dimension,
                                                 std::size_t k) const {
        const std::size_t count = queries.size() / dimension;
        std::vector<std::vector<EntityScore>> out(count);
        if (empty() || k == 0) return out;
        std::vector<std::size_t> pending(count);
        for (std::size_t q = 0; q < count; ++q) pending[q] = q;
        for (std::size_t depth = std::min(index->size(), k * 4); !pending.empty();
             depth = std::min(index->size(), depth * 4)) {
            std::vector<float> batch;
            batch.reserve(pending.size() * dimension);
            for (const std::size_t q : pending)
                batch.insert(batch.end(), queries.begin() + static_cast<std::ptrdiff_t>(q * dimension),
                             queries.begin() + static_cast<std::ptrdiff_t>((q + 1) * dimension));
            const auto found = index->search(batch, depth);
            std::vector<std::size_t> again;
            for (std::size_t i = 0; i < pending.size(); ++i) {
                std::vector<EntityScore> hits;
                for (const auto& candidate : found[i])
                    for (const std::uint32_t entity : rowEntities[candidate.entry])
                        hits.push_back({entity, std::clamp(candidate.score, -1.0f, 1.0f)});
                auto top = distinctTop(std::move(hits), k);
                if (top.size() < k && depth < index->size())
                    again.push_back(pending[i]);
                else
                    out[pending[i]] = std::move(top);
            }
            pending = std::move(again);
        }
        return out;
    }
};

}  // namespace

struct AugmentedLinker::State {
    const train::MethodLinker* model = nullptr;
    const retrieval::NameDictionary* dictionary = nullptr;
    const retrieval::KnnDatastore* datastore = nullptr;
    AugmentedOptions options;
    std::size_t dimension = 0;
    std::size_t ontologyEntries = 0;

    std::vector<std::string> entityIds;
    std::unordered_map<std::string, std::uint32_t> entityIndex;
    std::vector<std::vector<std::uint32_t>> entryEntities;
    std::vector<std::vector<std::uint32_t>> entityEntries;
    std::vector<std::uint32_t> representative;  ///< per entity: an entry naming it alone when there is one
    std::unordered_map<std::string_view, std::vector<std::uint32_t>> entriesByName;

    // Sieve spaces over the ontology, built once.
    VectorSpace ontologyText;
    std::vector<float> ontologySums;            ///< per entity: sum of its O names' unit vectors
    std::vector<std::uint32_t> ontologyCounts;  ///< per entity: how many
    VectorSpace ontologyConcepts;

    bool needs(retrieval::SearchTarget target, retrieval::SearchUnit unit) const {
        return std::any_of(options.sieve.stages.begin(), options.sieve.stages.end(),
                           [&](const retrieval::SearchStrategy& s) { return s.target == target && s.unit == unit; });
    }

    void buildEntityTable() {
        const auto& entries = *dictionary;
        entryEntities.resize(entries.size());
        for (std::size_t e = 0; e < entries.size(); ++e)
            for (const auto& id : entries[e].ids) {
                auto [it, added] = entityIndex.try_emplace(id, static_cast<std::uint32_t>(entityIds.size()));
                if (added) {
                    entityIds.push_back(id);
                    entityEntries.emplace_back();
                }
                entryEntities[e].push_back(it->second);
                entityEntries[it->second].push_back(static_cast<std::uint32_t>(e));
            }
        representative.assign(entityIds.size(), 0);
        for (std::size_t entity = 0; entity < entityIds.size(); ++entity) {
            const auto& named = entityEntries[entity];
            const auto alone = std::find_if(named.begin(), named.end(),
                                            [&](std::uint32_t entry) { return entryEntities[entry].size() == 1; });
            representative[entity] = alone != named.end() ? *alone : named.front();
        }
        for (std::size_t e = 0; e < entries.size(); ++e)
            entriesByName[entries[e].name].push_back(static_cast<std::uint32_t>(e));
    }

    void buildOntologySpaces() {
        if (options.mode != LinkMode::Sieve) return;
        using retrieval::SearchTarget;
        using retrieval::SearchUnit;
        const bool text =
            needs(SearchTarget::Ontology, SearchUnit::Text) || needs(SearchTarget::Both, SearchUnit::Text);
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
                for (std::size_t d = 0; d < dimension; ++d)
                    ontologySums[entity * dimension + d] += rows[e * dimension + d];
            }
        if (needs(SearchTarget::Ontology, SearchUnit::Concept)) {
            std::vector<float> means;
            std::vector<std::vector<std::uint32_t>> rowEntities;
            for (std::uint32_t entity = 0; entity < entityIds.size(); ++entity) {
                if (ontologyCounts[entity] == 0) continue;
                const auto sum = std::span<const float>(ontologySums).subspan(entity * dimension, dimension);
                means.insert(means.end(), sum.begin(), sum.end());
                normalize(std::span<float>(means).subspan(means.size() - dimension, dimension));
                rowEntities.push_back({entity});
            }
            ontologyConcepts.build(means, dimension, std::move(rowEntities));
        }
    }

    /// The datastore's entities as ours (kNoEntity where the dictionary lacks one). A datastore
    /// only ever appends to its entity table, so the mapping is kept and extended: a prediction
    /// after a decision does not look up every entity again.
    mutable std::mutex storeEntitiesMutex;
    mutable std::vector<std::uint32_t> storeEntities;

    std::vector<std::uint32_t> datastoreEntities() const {
        if (!datastore) return {};
        const std::lock_guard lock(storeEntitiesMutex);
        const auto ids = datastore->entities();
        for (std::size_t e = storeEntities.size(); e < ids.size(); ++e) {
            const auto it = entityIndex.find(ids[e]);
            storeEntities.push_back(it == entityIndex.end() ? kNoEntity : it->second);
        }
        return storeEntities;
    }

    /// The D spaces of one call (the datastore may have changed since the last).
    struct DataSpaces {
        std::vector<std::uint32_t> entities;  ///< datastore entity -> ours
        VectorSpace concepts;                 ///< D-C
        VectorSpace both;                     ///< OD-C
        struct TextKey {
            std::uint32_t entity;
            bool curated;
        };
        std::unordered_map<std::string, std::vector<TextKey>> keysByText;  ///< exact stage
    };

    DataSpaces dataSpaces() const {
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
                    normalize(std::span<float>(means).subspan(means.size() - dimension, dimension));
                    rowEntities.push_back({entity});
                }
                VectorSpace space;
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

    /// Whether a key records a curator's decision (not a training mention).
    bool isCurated(std::uint64_t key) const {
        const auto info = datastore->info(key);
        return info && info->origin != retrieval::KeyOrigin::Training;
    }

    /// D-T: the nearest keys' entities, distinct, best first. Keys of one text often disagree
    /// (a training text linked to different concepts in different documents) and tie exactly:
    /// among entities at the same similarity, a curator's decision comes first (the curator has
    /// just said what this text means here), then the one with more keys, a majority vote Xu &
    /// Bethard leave open.
    std::vector<std::vector<EntityScore>> searchKeys(std::span<const std::vector<retrieval::DatastoreNeighbor>> found,
                                                     const DataSpaces& spaces, std::size_t k) const {
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

    std::vector<EntityScore> exactMatches(std::string_view text, const DataSpaces& spaces) const {
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

    std::vector<std::vector<RankedEntity>> sieve(
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
                    *keyHits =
                        datastore->search(vectors, std::min(datastore->size(), std::max<std::size_t>(k * 8, 64)));
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
                const VectorSpace& space = strategy.target == SearchTarget::Ontology ? ontologyConcepts
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

    /// An entity as the model scores it, through one of its entries.
    static RankedEntity fromModel(std::uint32_t entity, const train::LinkedCandidate& candidate) {
        RankedEntity r;
        r.entity = entity;
        r.entry = candidate.entry;
        r.score = candidate.score;
        r.modelScore = candidate.score;
        r.dense = candidate.dense;
        r.sparse = candidate.sparse;
        return r;
    }

    /// The model's list as entities: each entity's best entry and score, best first.
    std::vector<RankedEntity> modelEntities(const ModelList& list) const {
        std::vector<RankedEntity> ranked;
        std::unordered_set<std::uint32_t> seen;
        for (const auto& candidate : list)
            for (const std::uint32_t entity : entryEntities[candidate.entry])
                if (seen.insert(entity).second) {
                    ranked.push_back(fromModel(entity, candidate));
                }
        return ranked;
    }

    std::vector<RankedEntity> interpolate(const std::string& input, std::span<const float> vector,
                                          const ModelList& list, std::span<const retrieval::DatastoreNeighbor> found,
                                          std::span<const std::uint32_t> storeEntities, std::size_t k) const {
        std::vector<RankedEntity> scored = modelEntities(list);
        std::unordered_map<std::uint32_t, std::size_t> position;
        for (std::size_t i = 0; i < scored.size(); ++i) position.emplace(scored[i].entity, i);

        std::vector<retrieval::EntityNeighbor> neighbors;
        for (const auto& neighbor : found)
            if (storeEntities[neighbor.entity] != kNoEntity)
                neighbors.push_back({storeEntities[neighbor.entity], neighbor.similarity});
        // An entity the neighbours name below the model's list: its exact model score.
        for (const auto& neighbor : neighbors) {
            if (position.contains(neighbor.entity)) continue;
            const auto& entries = entityEntries[neighbor.entity];
            const auto exact = model->score(input, vector, entries);
            const auto best = std::max_element(exact.begin(), exact.end(), [](const auto& a, const auto& b) {
                return a.score != b.score ? a.score < b.score : a.entry > b.entry;
            });
            position.emplace(neighbor.entity, scored.size());
            scored.push_back(fromModel(neighbor.entity, *best));
        }

        std::vector<EntityScore> modelScores;
        modelScores.reserve(scored.size());
        for (const auto& r : scored) modelScores.push_back({r.entity, r.modelScore});
        const auto combined = retrieval::interpolate(modelScores, neighbors, options.knn);
        std::vector<RankedEntity> out;
        for (const auto& c : combined) {
            if (out.size() == k) break;
            RankedEntity r = scored[position.at(c.entity)];
            r.score = c.probability;
            r.modelProbability = c.modelProbability;
            r.knnProbability = c.knnProbability;
            r.neighborSimilarity = c.neighborSimilarity;
            r.neighbors = c.neighbors;
            out.push_back(r);
        }
        return out;
    }

    std::vector<ModelList> modelLists(std::span<const std::string> inputs, std::span<const float> vectors) const {
        if (options.mode == LinkMode::Sieve) return ontologyTextLists(vectors);
        return model->rank(inputs, vectors, options.modelDepth);
    }

    // Sieve mode's fixed part: the ontology's names never change while curators decide, so each
    // mention's nearest O names (modelDepth rows, as entries with their cosine) are searched once
    // and kept as its "model list"; the O-T stages read them instead of searching every name again
    // each time a decision re-ranks the mentions it reached (on NCBI + MEDIC a turn of 24 took up
    // to 328 ms on the GUI thread, nearly all of it this search). Empty lists when no stage reads O-T.
    std::vector<ModelList> ontologyTextLists(std::span<const float> vectors) const {
        const std::size_t count = dimension == 0 ? 0 : vectors.size() / dimension;
        std::vector<ModelList> lists(count);
        if (ontologyText.empty() || count == 0) return lists;
        const auto queries = normalizedRows(vectors, dimension);
        const auto found =
            ontologyText.index->search(queries, std::min(options.modelDepth, ontologyText.index->size()));
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
    std::vector<std::vector<EntityScore>> ontologyTextResults(std::span<const float> queries,
                                                              std::span<const ModelList> lists, std::size_t k) const {
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
                for (const std::uint32_t entity : ontologyText.rowEntities[row.entry])
                    hits.push_back({entity, row.score});
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

    std::vector<std::vector<RankedEntity>> combine(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const {
        if (neighbors) neighbors->clear();
        if (vectors.size() != inputs.size() * dimension || models.size() != inputs.size())
            throw Error("linking: " + std::to_string(inputs.size()) + " inputs with " + std::to_string(vectors.size()) +
                        " vector values and " + std::to_string(models.size()) + " model lists");
        std::vector<std::vector<RankedEntity>> out(inputs.size());
        if (inputs.empty() || k == 0) return out;
        switch (options.mode) {
            case LinkMode::Sieve:
                return sieve(inputs, vectors, models, k, neighbors);
            case LinkMode::Model:
                for (std::size_t q = 0; q < inputs.size(); ++q) {
                    out[q] = modelEntities(models[q]);
                    if (out[q].size() > k) out[q].resize(k);
                }
                return out;
            case LinkMode::Knn:
                break;
        }
        std::vector<std::vector<retrieval::DatastoreNeighbor>> found(inputs.size());
        if (datastore && datastore->size() > 0) found = datastore->search(vectors, options.knn.k);
        const std::vector<std::span<const retrieval::DatastoreNeighbor>> lists(found.begin(), found.end());
        out = interpolateAll(inputs, vectors, models, lists, k);
        if (neighbors) *neighbors = std::move(found);
        return out;
    }

    // The kNN interpolation of every input with its neighbours (found or given).
    std::vector<std::vector<RankedEntity>> interpolateAll(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors, std::size_t k) const {
        std::vector<std::vector<RankedEntity>> out(inputs.size());
        const std::vector<std::uint32_t> storeEntities = datastoreEntities();
        for (std::size_t q = 0; q < inputs.size(); ++q)
            out[q] = interpolate(inputs[q], vectors.subspan(q * dimension, dimension), models[q], neighbors[q],
                                 storeEntities, k);
        return out;
    }

    std::vector<std::vector<RankedEntity>> link(std::span<const std::string> inputs, std::size_t k) const {
        const auto vectors = model->encodeMentions(inputs);
        const auto models = modelLists(inputs, vectors);
        return combine(inputs, vectors, models, k, nullptr);
    }
};

AugmentedLinker::AugmentedLinker(const train::MethodLinker& model, const retrieval::NameDictionary& dictionary,
                                 const retrieval::KnnDatastore* datastore, AugmentedOptions options)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.model = &model;
    s.dictionary = &dictionary;
    s.datastore = datastore;
    s.options = std::move(options);
    s.dimension = model.dimension();
    s.ontologyEntries = std::min(s.options.ontologyEntries, dictionary.size());
    if (datastore && datastore->dimension() != s.dimension)
        throw Error("linking with a datastore: its keys have " + std::to_string(datastore->dimension()) +
                    " dimensions, the encoder's vectors " + std::to_string(s.dimension) +
                    " (the datastore was made by another encoder; rebuild it)");
    if (s.options.mode == LinkMode::Knn) retrieval::validate(s.options.knn);
    if (s.options.mode == LinkMode::Sieve && s.options.sieve.stages.empty())
        throw Error("sieve search: no search stage given (e.g. \"D-T+OD-T\")");
    if (s.options.modelDepth == 0) throw Error("linking: the model depth must be positive");
    s.buildEntityTable();
    s.buildOntologySpaces();
}

AugmentedLinker::AugmentedLinker(AugmentedLinker&&) noexcept = default;
AugmentedLinker& AugmentedLinker::operator=(AugmentedLinker&&) noexcept = default;
AugmentedLinker::~AugmentedLinker() = default;

std::vector<float> AugmentedLinker::encode(std::span<const std::string> inputs) const {
    return state_->model->encodeMentions(inputs);
}

std::vector<ModelList> AugmentedLinker::modelLists(std::span<const std::string> inputs,
                                                   std::span<const float> vectors) const {
    return state_->modelLists(inputs, vectors);
}

std::vector<std::vector<RankedEntity>> AugmentedLinker::combine(
    std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
    std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const {
    return state_->combine(inputs, vectors, models, k, neighbors);
}

std::vector<std::vector<RankedEntity>> AugmentedLinker::combineWith(
    std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
    std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors, std::size_t k) const {
    const State& s = *state_;
    if (s.options.mode != LinkMode::Knn) throw Error("linking: given neighbours are for the kNN interpolation only");
    if (vectors.size() != inputs.size() * s.dimension || models.size() != inputs.size() ||
        neighbors.size() != inputs.size())
        throw Error("linking: " + std::to_string(inputs.size()) + " inputs with " + std::to_string(vectors.size()) +
                    " vector values, " + std::to_string(models.size()) + " model lists and " +
                    std::to_string(neighbors.size()) + " neighbour lists");
    if (inputs.empty() || k == 0) return std::vector<std::vector<RankedEntity>>(inputs.size());
    return s.interpolateAll(inputs, vectors, models, neighbors, k);
}

std::vector<std::vector<RankedEntity>> AugmentedLinker::link(std::span<const std::string> inputs, std::size_t k) const {
    return state_->link(inputs, k);
}

eval::RankFn AugmentedLinker::rankFunction() const {
    // The state, not `this`: the function stays valid when the linker is moved.
    const State* state = state_.get();
    return [state](std::span<const std::string> queries, std::size_t k) {
        const auto ranked = state->link(queries, k);
        std::vector<std::vector<retrieval::Candidate>> out(ranked.size());
        for (std::size_t q = 0; q < ranked.size(); ++q) {
            std::unordered_set<std::uint32_t> listed;
            for (const auto& r : ranked[q])
                if (listed.insert(r.entry).second) out[q].push_back({r.entry, static_cast<float>(r.score)});
        }
        return out;
    };
}

const std::string& AugmentedLinker::entityId(std::uint32_t entity) const {
    if (entity >= state_->entityIds.size())
        throw Error("linking: entity " + std::to_string(entity) + " of " + std::to_string(state_->entityIds.size()));
    return state_->entityIds[entity];
}

std::optional<std::uint32_t> AugmentedLinker::findEntity(std::string_view id) const {
    const auto it = state_->entityIndex.find(std::string(id));
    if (it == state_->entityIndex.end()) return std::nullopt;
    return it->second;
}

const AugmentedOptions& AugmentedLinker::options() const noexcept { return state_->options; }
const train::MethodLinker& AugmentedLinker::model() const noexcept { return *state_->model; }

}  // namespace linkscope::curation
