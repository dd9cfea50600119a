// AugmentedLinker's kNN mode (curation/augmented_linker.h): kNN-BioEL's interpolation of the
// model's ranking with the datastore's nearest keys (retrieval/knn_interpolation.h).
#include <algorithm>
#include <unordered_map>

#include "curation/augmented_linker_state.h"
#include "retrieval/knn_datastore.h"

namespace linkscope::curation {

using retrieval::EntityScore;

std::vector<std::vector<RankedEntity>> AugmentedLinker::State::combineKnn(
    std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
    std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const {
    std::vector<std::vector<retrieval::DatastoreNeighbor>> found(inputs.size());
    if (datastore && datastore->size() > 0) found = datastore->search(vectors, options.knn.k);
    const std::vector<std::span<const retrieval::DatastoreNeighbor>> lists(found.begin(), found.end());
    auto out = interpolateAll(inputs, vectors, models, lists, k);
    if (neighbors) *neighbors = std::move(found);
    return out;
}

std::vector<RankedEntity> AugmentedLinker::State::interpolate(const std::string& input, std::span<const float> vector,
                                                              const ModelList& list,
                                                              std::span<const retrieval::DatastoreNeighbor> found,
                                                              std::span<const std::uint32_t> storeEntities,
                                                              std::size_t k) const {
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

std::vector<std::vector<RankedEntity>> AugmentedLinker::State::interpolateAll(
    std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
    std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors, std::size_t k) const {
    std::vector<std::vector<RankedEntity>> out(inputs.size());
    const std::vector<std::uint32_t> storeEntities = datastoreEntities();
    for (std::size_t q = 0; q < inputs.size(); ++q)
        out[q] = interpolate(inputs[q], vectors.subspan(q * dimension, dimension), models[q], neighbors[q],
                             storeEntities, k);
    return out;
}

}  // namespace linkscope::curation
