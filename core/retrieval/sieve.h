#pragma once
// Xu & Bethard's (2021) similarity-search strategies and their sieve.
//  - A strategy names what is searched (Table 1): the ontology's synonyms (O), the training
//    data's mentions (D) or both (OD), compared one vector per text (-T) or one vector per
//    concept, the average of its texts (-C).
//  - A sieve runs strategies from the most precise to the least (Table 2, e.g. D-T + OD-T):
//    "if the cosine similarity score between the mention and the prediction of the first sieve
//    is above 0.95, we use the prediction of first sieve, otherwise, we use the prediction of
//    the second sieve". We allow any number of stages, and an exact-match stage in front.
// Pure control flow: the caller supplies the searches, which return cosine similarities.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/knn_interpolation.h"  // EntityScore

namespace linkscope::retrieval {

enum class SearchTarget { Ontology, Data, Both };  ///< O, D, OD
enum class SearchUnit { Text, Concept };           ///< -T (one vector per text), -C (one averaged vector per concept)

struct SearchStrategy {
    SearchTarget target = SearchTarget::Ontology;
    SearchUnit unit = SearchUnit::Text;

    friend bool operator==(const SearchStrategy&, const SearchStrategy&) = default;
};

/// "O-T", "O-C", "D-T", "D-C", "OD-T" or "OD-C".
std::string strategyName(const SearchStrategy& strategy);
/// The inverse of strategyName (exact spelling, surrounding blanks ignored); throws Error listing
/// the six valid names otherwise.
SearchStrategy parseStrategy(std::string_view name);

struct SieveSpec {
    bool exactMatch = false;             ///< an exact-match stage in front ("exact")
    std::vector<SearchStrategy> stages;  ///< e.g. {D-T, OD-T}; one stage = plain search
    double threshold = 0.95;             ///< an earlier stage decides when its top cosine >= this (paper: 0.95)
};

/// "OD-T", "D-T+OD-T", "exact+D-T+OD-T" (blanks around '+' allowed, as the paper writes
/// "D-T + O-C"). Throws Error for an empty spec or component, an unknown name, "exact" other
/// than first or twice, no search stage, or a strategy given twice (its second search could
/// only repeat the first). The threshold keeps its default.
SieveSpec parseSieve(std::string_view spec);
/// The inverse of parseSieve: components joined by '+' without blanks (the threshold is not part
/// of the name).
std::string sieveName(const SieveSpec& spec);

/// One stage's ranked entities, best first (cosine similarity as score).
struct StageResult {
    std::vector<EntityScore> ranked;
};

/// What the sieve predicts and which stage decided.
struct SieveOutcome {
    std::vector<EntityScore> ranked;  ///< the deciding stage's ranking, as that stage returned it
    /// Position of the deciding stage among the sieve's components as sieveName lists them: 0 is
    /// the exact stage when the spec has one (then stages[i] is position i + 1), otherwise
    /// position i is stages[i]. stageName() spells it.
    std::size_t stage = 0;
    bool exact = false;  ///< the exact stage decided
};

/// "exact" or the strategy name of the stage that decided `outcome`.
std::string stageName(const SieveSpec& spec, const SieveOutcome& outcome);

/// Runs the sieve lazily: a stage's search is called only when the stages before it did not
/// decide. The exact stage (exactMatches: the entities whose normalized text equals the
/// mention's, caller-computed; empty = no match) decides when it found any entity, ranked in the
/// order given. A search stage other than the last decides when its top (first) similarity >=
/// threshold; the last stage always decides, even below the threshold or empty. An empty ranking
/// never decides before the last stage. Throws Error for a spec without stages, a NaN threshold,
/// or an empty function the spec needs; errors thrown by the searches pass through.
SieveOutcome runSieve(const SieveSpec& spec, const std::function<std::vector<EntityScore>()>& exactMatches,
                      const std::function<std::vector<EntityScore>(const SearchStrategy&)>& search);

}  // namespace linkscope::retrieval
