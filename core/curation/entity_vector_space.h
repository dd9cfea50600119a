#pragma once
// The sieve's searchable spaces (curation/augmented_linker.h): unit vectors, each row standing
// for one or more entities (an O-T name naming several, a -C concept vector naming one), searched
// by cosine for the best k distinct entities.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "retrieval/dense_index.h"
#include "retrieval/knn_interpolation.h"  // EntityScore

namespace linkscope::curation {

/// Scales a row to unit length (a zero row stays zero).
void normalizeRow(std::span<float> row) noexcept;
/// A copy of `rows` (count x dimension) with each row scaled to unit length.
std::vector<float> normalizedRows(std::span<const float> rows, std::size_t dimension);

/// Keeps each entity's first (best) appearance, at most k of them, best first. Equal scores keep
/// the order they came in: the search's own tie order (rows ascending; for keys, the votes of
/// the D-T stage), and for OD the training data's before the ontology's.
std::vector<retrieval::EntityScore> distinctTop(std::vector<retrieval::EntityScore> ranked, std::size_t k);

/// A searchable set of unit vectors, each standing for one or more entities (a -C space, or O-T
/// rows mapped through their entries).
struct EntityVectorSpace {
    std::optional<retrieval::DenseIndex> index;
    std::vector<std::vector<std::uint32_t>> rowEntities;  ///< the entities each row stands for

    bool empty() const noexcept { return !index || index->size() == 0; }

    /// Indexes `rows` (unit vectors, count x dimension), row i standing for entities[i].
    void build(std::span<const float> rows, std::size_t dimension, std::vector<std::vector<std::uint32_t>> entities);

    /// The best k distinct entities for each (normalized) query, deepening the search when a
    /// row's entities repeat (the synonyms of one concept).
    std::vector<std::vector<retrieval::EntityScore>> search(std::span<const float> queries, std::size_t dimension,
                                                            std::size_t k) const;
};

}  // namespace linkscope::curation
