#pragma once
// Whether a model has collapsed: answers (nearly) one entity for every mention, or maps every
// mention to the same vector. A collapsed model can still score a few percent, the
// share of the one entity it proposes, which looks like slow learning on a curve; the trainer
// checks every validation with this and says it in plain words. Torch-free.
#include <cstddef>
#include <span>
#include <string>

#include "eval/evaluate.h"
#include "retrieval/name_dictionary.h"

namespace linkscope::train {

/// Below this share of the gold entities, the distinct answers at rank 1 mean a collapse.
inline constexpr double kCollapseAnswerShare = 0.2;
/// From this mean pairwise cosine on, the mention vectors count as identical: the model ignores
/// its input (equal to float precision). Not lower: BERT's random initialisation already gives
/// [CLS] vectors at a mean cosine of about 0.99999 (the [CLS] and position embeddings dominate
/// the first position), and such a model still ranks, by differences of 1e-5; the answers at
/// rank 1 are the sign that matters, and every validation logs the cosine beside them.
inline constexpr double kCollapseCosine = 1.0 - 1e-7;

struct CollapseCheck {
    std::size_t parts = 0;         ///< query parts ranked
    std::size_t distinctTop1 = 0;  ///< distinct answers at rank 1 (an entry's id set is one answer)
    std::size_t goldEntities = 0;  ///< distinct gold ids of the queries
    double meanCosine = 0.0;       ///< mean pairwise cosine of the mention vectors (NaN: none)

    bool fewAnswers() const noexcept;        ///< distinctTop1 < kCollapseAnswerShare * goldEntities
    bool identicalVectors() const noexcept;  ///< meanCosine >= kCollapseCosine (NaN: false)
    bool collapsed() const noexcept { return fewAnswers() || identicalVectors(); }
    /// What a user reads: empty when not collapsed, else which sign and its figures.
    std::string warning() const;
};

/// Mean cosine over all pairs i < j of the rows (rows x dimension), in O(rows * dimension) from the
/// sum of the unit rows: (|sum|^2 - n) / (n (n - 1)). Zero rows count as unit rows of cosine 0.
/// NaN for fewer than two rows.
double meanPairwiseCosine(std::span<const float> rows, std::size_t dimension);

/// The check of one validation: the evaluation's top entries against the dictionary, the gold
/// ids of its queries, and the mention vectors the model gave the same queries' parts.
CollapseCheck checkCollapse(const eval::EvalResult& result, std::span<const eval::EvalQuery> queries,
                            const retrieval::NameDictionary& dictionary, std::span<const float> mentionVectors,
                            std::size_t dimension);

}  // namespace linkscope::train
