#include "curation/augmented_linker.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "curation/augmented_linker_state.h"
#include "retrieval/knn_datastore.h"
#include "util/error.h"

// The linker's API, its entity table and the model mode; the kNN and sieve modes live in
// augmented_linker_knn.cpp and augmented_linker_sieve.cpp.

namespace linkscope::curation {

void AugmentedLinker::State::buildEntityTable() {
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

std::vector<std::uint32_t> AugmentedLinker::State::datastoreEntities() const {
    if (!datastore) return {};
    const std::lock_guard lock(storeEntitiesMutex);
    const auto ids = datastore->entities();
    for (std::size_t e = storeEntities.size(); e < ids.size(); ++e) {
        const auto it = entityIndex.find(ids[e]);
        storeEntities.push_back(it == entityIndex.end() ? kNoEntity : it->second);
    }
    return storeEntities;
}

RankedEntity AugmentedLinker::State::fromModel(std::uint32_t entity, const train::LinkedCandidate& candidate) {
    RankedEntity r;
    r.entity = entity;
    r.entry = candidate.entry;
    r.score = candidate.score;
    r.modelScore = candidate.score;
    r.dense = candidate.dense;
    r.sparse = candidate.sparse;
    return r;
}

std::vector<RankedEntity> AugmentedLinker::State::modelEntities(const ModelList& list) const {
    std::vector<RankedEntity> ranked;
    std::unordered_set<std::uint32_t> seen;
    for (const auto& candidate : list)
        for (const std::uint32_t entity : entryEntities[candidate.entry])
            if (seen.insert(entity).second) {
                ranked.push_back(fromModel(entity, candidate));
            }
    return ranked;
}

std::vector<ModelList> AugmentedLinker::State::modelLists(std::span<const std::string> inputs,
                                                          std::span<const float> vectors) const {
    if (options.mode == LinkMode::Sieve) return ontologyTextLists(vectors);
    return model->rank(inputs, vectors, options.modelDepth);
}

std::vector<std::vector<RankedEntity>> AugmentedLinker::State::combine(
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
    return combineKnn(inputs, vectors, models, k, neighbors);
}

std::vector<std::vector<RankedEntity>> AugmentedLinker::State::link(std::span<const std::string> inputs,
                                                                    std::size_t k) const {
    const auto vectors = model->encodeMentions(inputs);
    const auto models = modelLists(inputs, vectors);
    return combine(inputs, vectors, models, k, nullptr);
}

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
