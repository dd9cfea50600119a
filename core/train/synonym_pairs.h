#pragma once
// The training data of SapBERT's self-alignment pretraining (Liu et al. 2021): pairs of names of
// the same concept, from one or more vocabularies (MEDIC, CTD diseases, UMLS). Names are
// normalized as the linkers compare them (BioSyn's dictionary normalization), so the encoder
// learns on the very strings it later ranks. Torch-free.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "train/kb_holdout.h"
#include "train/training_preset.h"

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::train {

struct SynonymPairs {
    std::vector<std::string> names;                   ///< distinct normalized names
    std::vector<std::string> conceptIds;              ///< distinct concept ids, first seen first
    std::vector<std::array<std::uint32_t, 2>> pairs;  ///< name indexes of each pair
    std::vector<std::uint32_t> pairConcept;           ///< concept index of each pair
    std::size_t conceptsWithSynonyms = 0;             ///< concepts with two names or more
    std::size_t pairsAvailable = 0;                   ///< all pairs before the per-concept cap
    std::size_t conceptsHeldOut = 0;                  ///< concepts left out for validation (kb_holdout.h)
};

/// Every concept of the vocabularies (a concept id in several of them gathers all its names)
/// gives the pairs of its distinct names, at most settings.maxPairsPerConcept of them drawn with
/// the seed, and (name, name) when it has one name and settings.singleNamePairs is set. The
/// order is deterministic: concepts as first met, pairs as drawn. The concepts of `heldOut`
/// give no pair, and its query names are in no pair (they are validation queries). Error when
/// no pair results.
SynonymPairs buildSynonymPairs(std::span<const kb::KnowledgeBase* const> kbs, const SelfAlignmentSettings& settings,
                               std::uint64_t seed, const KbHoldout* heldOut = nullptr);

}  // namespace linkscope::train
