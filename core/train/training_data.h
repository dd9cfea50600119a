#pragma once
// What the trainer learns from, built once per run: the dictionary it searches (the KB's names,
// homonym-expanded for BELHD), each name as the method's encoder reads it, the training and dev
// mentions after BioSyn's preprocessing (one per query part, with the method's input), and the
// entity table the objectives group names and mentions by. Torch-free.
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval/queries.h"
#include "retrieval/name_dictionary.h"
#include "train/kb_holdout.h"
#include "train/method_inputs.h"
#include "train/training_preset.h"

namespace linkscope {
class Corpus;
}
namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::train {

struct TrainingMention {
    std::string part;                 ///< the normalized query part (what sparse search reads)
    std::string input;                ///< the method's mention input (method_inputs.h)
    std::vector<std::uint32_t> gold;  ///< gold entities (indexes into TrainingData::entityIds)
    std::uint32_t document = 0;       ///< index of its document in the corpus
};

struct TrainingData {
    retrieval::NameDictionary dictionary;                   ///< what is searched, KB names only
    std::vector<std::string> nameInputs;                    ///< nameInput() of every entry
    std::vector<std::string> entityIds;                     ///< the distinct ids of the dictionary
    std::vector<std::vector<std::uint32_t>> entryEntities;  ///< entity indexes of each entry
    std::vector<std::vector<std::uint32_t>> entityEntries;  ///< entries of each entity
    std::vector<std::string> entityInputs;                  ///< Le & Nguyen's entity texts (prototype-srn only)
    std::vector<TrainingMention> train;                     ///< training mentions, at most the schedule's cap
    eval::QuerySet devQueries;                              ///< the dev queries, evaluated after each epoch
    std::size_t trainMentionsAvailable = 0;                 ///< before the schedule's cap
    std::size_t trainPartsWithoutEntity = 0;                ///< dropped: gold not among the dictionary's ids
    std::size_t trainPartsHeldOut = 0;                      ///< dropped: gold held out for validation
    /// With no dev corpus: the KB's concepts held out for validation (kb_holdout.h); devQueries
    /// then asks for them, and the dictionary lacks their query names. Empty otherwise.
    KbHoldout holdout;

    /// True when entry `entry` names one of `gold` (lenient, as eval::idsMatch).
    bool isPositive(std::uint32_t entry, const std::vector<std::uint32_t>& gold) const noexcept;
};

/// Builds the data of a run; `count` (the encoder's tokenizer) fits the context of mention inputs
/// into preset.maxLength. `train` may be null only for a method that learns from the KB alone
/// (the self-alignment pretraining): its data has the dictionary and the dev queries. With
/// `holdOut` and no `dev`, the validation data is a KB holdout (kb_holdout.h, seeded by the
/// preset's seed, at most the schedule's max_dev_mentions): the dictionary loses the held-out
/// query names, training mentions of a held-out concept are dropped, and the dev queries are the
/// held-out names. Throws Error when no training mention remains (or `train` is null for a
/// method that needs one).
TrainingData buildTrainingData(const TrainingPreset& preset, const Schedule& schedule, const kb::KnowledgeBase& kb,
                               const Corpus* train, const Corpus* dev, const eval::QueryOptions& queryOptions,
                               const TokenCounter& count = {}, bool holdOut = false);

/// The schedule's cap on training mentions, applied by document: documents are drawn in an order
/// from the seed and taken whole while their mentions fit in `cap` (a document that does not fit
/// is passed over for a smaller one), so the (document, entity) groups that the prototype loss
/// and BELHD's candidate sharing read stay complete. When no document fits, the first drawn is
/// taken alone. Returns the kept indexes of `mentions`, in corpus order; all when cap is 0 or
/// not below their number.
std::vector<std::size_t> sampleByDocument(std::span<const TrainingMention> mentions, std::size_t cap,
                                          std::uint64_t seed);

}  // namespace linkscope::train
