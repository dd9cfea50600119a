#pragma once
// Validation data drawn from the KB itself, for a run given no dev corpus: a share of the
// concepts with two names or more is held out. Each held-out concept is asked for by one of its
// names (a name no other concept has), linked against the dictionary without that name, so
// that exact match cannot answer it and the concept's other names must. The held-out concepts
// are not trained on: their synonym pairs leave the self-alignment, their corpus mentions leave
// the training mentions, and their query names leave the dictionary the run searches.
// (Prototype-srn's entity inputs are read from the KB and still list every name of a concept.)
// Deterministic: the draw is seeded by the preset's seed. Torch-free.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/queries.h"
#include "retrieval/name_dictionary.h"

namespace linkscope::train {

/// The share of the eligible concepts held out: few enough that the training loses little.
inline constexpr double kKbHoldoutShare = 0.02;
/// At least this many queries when the KB has the concepts for it: Acc@1 then moves in steps
/// small enough to rank epochs.
inline constexpr std::size_t kKbHoldoutFloor = 50;
/// At most this share of the eligible concepts, whatever the floor asks: a small KB keeps most
/// of its synonyms for training.
inline constexpr double kKbHoldoutMostShare = 0.1;
/// Fewer queries than this cannot rank epochs: no holdout then (the run is not validated).
inline constexpr std::size_t kKbHoldoutFewest = 20;
/// At most this many queries, so that validating stays cheap on UMLS-sized KBs.
inline constexpr std::size_t kKbHoldoutMost = 2000;

struct KbHoldout {
    std::vector<std::string> conceptIds;  ///< the held-out concepts (KB primary ids), in dictionary order
    std::vector<std::string> queryNames;  ///< the name each is asked for by (dictionary-normalized)
    std::size_t eligibleConcepts = 0;     ///< concepts with two names or more, one of them their own

    bool empty() const noexcept { return conceptIds.empty(); }
    bool holdsConcept(std::string_view id) const noexcept;
    bool holdsName(std::string_view name) const noexcept;

    friend bool operator==(const KbHoldout& a, const KbHoldout& b) {
        return a.conceptIds == b.conceptIds && a.queryNames == b.queryNames && a.eligibleConcepts == b.eligibleConcepts;
    }

private:
    friend KbHoldout holdOutConcepts(const retrieval::NameDictionary&, std::uint64_t, std::size_t);
    std::vector<std::string> sortedConcepts_;
    std::vector<std::string> sortedNames_;
};

/// How many concepts are held out of `eligible` ones: kKbHoldoutShare of them, at least
/// kKbHoldoutFloor, at most kKbHoldoutMostShare of them and kKbHoldoutMost, and at most `cap`
/// when it is not 0 (the schedule's max_dev_mentions); 0 when that leaves fewer than
/// kKbHoldoutFewest.
std::size_t kbHoldoutSize(std::size_t eligible, std::size_t cap = 0) noexcept;

/// Draws the holdout from a dictionary of the KB's names (eval::EvalDictionaryBuilder, no
/// homonym expansion): a concept is eligible when it has two entries or more and at least one
/// of them names it alone; each drawn concept is asked for by one such name, drawn too. Empty
/// (eligibleConcepts still counted) when kbHoldoutSize() is 0.
KbHoldout holdOutConcepts(const retrieval::NameDictionary& dictionary, std::uint64_t seed, std::size_t cap = 0);

/// The dictionary without the holdout's query names (every other entry, in order).
retrieval::NameDictionary withoutQueryNames(retrieval::NameDictionary dictionary, const KbHoldout& holdout);

/// One query per held-out concept: its query name as the only part, the concept as gold, no
/// document (a method that reads mentions in context reads the name between its markers).
eval::QuerySet holdoutQueries(const KbHoldout& holdout);

}  // namespace linkscope::train
