#pragma once
// Combining ranked lists and reading them as entities.
//  - Le & Nguyen generate candidates with two TF-IDF settings (character 2-5 grams, word
//    unigrams) and merge the two lists, dropping duplicates.
//  - A dictionary entry is a name; several entries can name the same concept, and one entry
//    can name several concepts (a homonym the KB left unresolved). Entity-level results group
//    the ranked entries by the concepts they name.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "retrieval/name_dictionary.h"

namespace linkscope::retrieval {

enum class MergeOrder {
    /// Rank 1 of every list, then rank 2 of every list, ... (list order breaks ties). Both
    /// generators contribute to the first k even when each list holds k candidates.
    Interleave,
    /// All of the first list, then what the second adds, ...
    Concatenate,
};

/// Merges ranked candidate lists into one of at most k candidates, each entry once, in
/// first-seen order (see MergeOrder). A candidate keeps the score of the list it was first
/// seen in: scores from different TF-IDF settings are not comparable, so they are not re-sorted.
std::vector<Candidate> mergeCandidates(std::span<const std::vector<Candidate>> lists, std::size_t k,
                                       MergeOrder order = MergeOrder::Interleave);

/// The ranked entries that name one set of concepts.
struct ConceptGroup {
    std::vector<std::string> ids;        ///< the entries' ids, sorted (the set the group stands for)
    std::vector<std::uint32_t> entries;  ///< dictionary entries in rank order
    float bestScore = 0.0f;              ///< score of the first of them
    std::size_t firstRank = 0;           ///< 0-based rank of the first of them in the input list
    /// The names are shared by several concepts (an unresolved homonym): an entity-level
    /// prediction from this group is ambiguous.
    bool ambiguous() const noexcept { return ids.size() > 1; }
};

/// Groups a ranked list by id set, groups in the order of their best-ranked entry. Entries with
/// the same ids in another order fall into one group. Throws Error for an entry index outside
/// the dictionary.
std::vector<ConceptGroup> groupByConcept(std::span<const Candidate> ranked, const NameDictionary& dictionary);

}  // namespace linkscope::retrieval
