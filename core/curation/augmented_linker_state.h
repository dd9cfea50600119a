#pragma once
// AugmentedLinker's state, shared by the files of its modes (not for use outside them):
//   augmented_linker.cpp          the linker's API, the entity table and the model mode;
//   augmented_linker_knn.cpp      the kNN interpolation (mode knn);
//   augmented_linker_sieve.cpp    the search strategies and sieves (mode sieve).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "curation/augmented_linker.h"
#include "curation/entity_vector_space.h"

namespace linkscope::curation {

/// A datastore entity the dictionary lacks.
inline constexpr std::uint32_t kNoEntity = std::numeric_limits<std::uint32_t>::max();

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
    EntityVectorSpace ontologyText;
    std::vector<float> ontologySums;            ///< per entity: sum of its O names' unit vectors
    std::vector<std::uint32_t> ontologyCounts;  ///< per entity: how many
    EntityVectorSpace ontologyConcepts;

    /// The datastore's entities as ours (kNoEntity where the dictionary lacks one). A datastore
    /// only ever appends to its entity table, so the mapping is kept and extended: a prediction
    /// after a decision does not look up every entity again.
    mutable std::mutex storeEntitiesMutex;
    mutable std::vector<std::uint32_t> storeEntities;

    // ---- every mode (augmented_linker.cpp)
    void buildEntityTable();
    std::vector<std::uint32_t> datastoreEntities() const;
    /// An entity as the model scores it, through one of its entries.
    static RankedEntity fromModel(std::uint32_t entity, const train::LinkedCandidate& candidate);
    /// The model's list as entities: each entity's best entry and score, best first.
    std::vector<RankedEntity> modelEntities(const ModelList& list) const;
    std::vector<ModelList> modelLists(std::span<const std::string> inputs, std::span<const float> vectors) const;
    std::vector<std::vector<RankedEntity>> combine(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const;
    std::vector<std::vector<RankedEntity>> link(std::span<const std::string> inputs, std::size_t k) const;

    // ---- mode knn (augmented_linker_knn.cpp)
    /// combine() in kNN mode: each input's knn.k nearest keys searched, then interpolated.
    std::vector<std::vector<RankedEntity>> combineKnn(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const;
    std::vector<RankedEntity> interpolate(const std::string& input, std::span<const float> vector,
                                          const ModelList& list, std::span<const retrieval::DatastoreNeighbor> found,
                                          std::span<const std::uint32_t> storeEntities, std::size_t k) const;
    /// The kNN interpolation of every input with its neighbours (found or given).
    std::vector<std::vector<RankedEntity>> interpolateAll(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors, std::size_t k) const;

    // ---- mode sieve (augmented_linker_sieve.cpp)
    /// Whether a sieve stage searches `target` by `unit`.
    bool needs(retrieval::SearchTarget target, retrieval::SearchUnit unit) const;
    void buildOntologySpaces();

    /// The D spaces of one call (the datastore may have changed since the last).
    struct DataSpaces {
        std::vector<std::uint32_t> entities;  ///< datastore entity -> ours
        EntityVectorSpace concepts;           ///< D-C
        EntityVectorSpace both;               ///< OD-C
        struct TextKey {
            std::uint32_t entity;
            bool curated;
        };
        std::unordered_map<std::string, std::vector<TextKey>> keysByText;  ///< exact stage
    };
    DataSpaces dataSpaces() const;
    /// Whether a key records a curator's decision (not a training mention).
    bool isCurated(std::uint64_t key) const;
    std::vector<std::vector<retrieval::EntityScore>> searchKeys(
        std::span<const std::vector<retrieval::DatastoreNeighbor>> found, const DataSpaces& spaces,
        std::size_t k) const;
    std::vector<retrieval::EntityScore> exactMatches(std::string_view text, const DataSpaces& spaces) const;
    std::vector<std::vector<RankedEntity>> sieve(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> lists,
        std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) const;
    std::vector<ModelList> ontologyTextLists(std::span<const float> vectors) const;
    std::vector<std::vector<retrieval::EntityScore>> ontologyTextResults(std::span<const float> queries,
                                                                         std::span<const ModelList> lists,
                                                                         std::size_t k) const;
};

}  // namespace linkscope::curation
