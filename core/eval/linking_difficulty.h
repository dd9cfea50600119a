#pragma once
// How hard a corpus is for a name-based linker, read from its mentions and the KB alone, and,
// when a run's per-mention outcomes are given, how that run fares on each kind of mention.
//
// The mentions are turned into queries as an evaluation does (queries.h: abbreviations expanded,
// composites split, the query normalization), except that mentions with ids the KB does not know
// are kept so that they can be counted. Each mention of the selected types is in exactly one class:
//   cui-less      id "-1" or none: no concept (BioSyn's protocol drops it);
//   unknown id    an id the KB does not know, retired or newer than the KB (dropped too);
//   composite     several ids ("breast and ovarian cancer"; '|' or '+');
//   gold name     its one query part is a KB name (the dictionary normalization, dictionary.h)
//                 of its gold concept and of no other: a sparse linker's easy case;
//   shared name   a KB name of its gold concept and also of another concept: a homonym that the
//                 lenient metric accepts and the strict one does not;
//   other's name  a KB name of other concepts only: the exact match is wrong;
//   no KB name    none of the above: only an approximate match can link it.
// Mentions with a concept (every class but cui-less) are also grouped by properties that cut
// across the classes:
//   chemical-adjacent  the mention's words (comparisonWords, error_categories.h) contain a
//                 chemical name's words in sequence (names with fewer than
//                 minChemicalNameLength letters and digits are ignored: mostly short forms that
//                 collide with other words), or a word of drug harm: one that contains "toxic" or
//                 "induced", or starts with "poison", "overdos", "addict" or "abuse";
//   abbreviation expanded  the query preprocessing replaced a short form;
//   seen / unseen in training  the gold concepts are all among the training mentions' or not,
//                 as the run's outcome records it (absent without outcomes);
//   N words       the mention's length in words as written: 1, 2, 3, 4 or more.
#include <cstddef>
#include <string>
#include <vector>

#include "eval/queries.h"

namespace linkscope {
class Corpus;
}
namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::eval {

struct EvalResult;

enum class DifficultyClass { CuiLess, UnknownId, Composite, GoldName, SharedName, OtherName, NoKbName };
inline constexpr std::size_t kDifficultyClassCount = 7;

/// "cui-less", "unknown id", "composite", "gold name", "shared name", "other's name", "no KB name".
std::string difficultyClassName(DifficultyClass c);

/// Mentions of one group, and a run's outcomes on those of them it linked.
struct DifficultyGroup {
    std::string name;
    std::size_t mentions = 0;
    std::size_t withOutcome = 0;  ///< mentions the outcomes cover
    std::size_t correctAt1 = 0;   ///< of those, right at rank 1 (lenient)
    std::size_t words = 0;        ///< sum of the mentions' lengths in words
    /// Distinct query texts (normalized parts) of the mentions, and of those linked wrongly:
    /// a corpus that repeats its strings repeats its errors.
    std::size_t distinctTexts = 0;
    std::size_t distinctWrongTexts = 0;
};

struct LinkingDifficulty {
    std::size_t mentions = 0;              ///< of the selected types
    std::vector<DifficultyGroup> classes;  ///< one per DifficultyClass, in enum order
    /// chemical-adjacent, abbreviation expanded, seen in training, unseen in training, 1 word,
    /// 2 words, 3 words, 4+ words (seen / unseen: as the outcome records it, MentionOutcome::seen).
    std::vector<DifficultyGroup> properties;
    bool hasOutcomes = false;
    std::size_t outcomes = 0;           ///< mention outcomes given
    std::size_t outcomesUnmatched = 0;  ///< of those, on no mention of the corpus
    /// Distinct query texts of the mentions with a concept, and of those linked wrongly.
    std::size_t distinctTexts = 0;
    std::size_t distinctWrongTexts = 0;
};

struct DifficultyOptions {
    /// Types and query normalization (spelling map). Unknown ids are always kept.
    QueryOptions queries;
    /// Chemical names as written (e.g. the texts of a corpus' Chemical mentions).
    std::vector<std::string> chemicalNames;
    std::size_t minChemicalNameLength = 4;
    /// A run's per-mention outcomes on this corpus (per_mention_reader.h), matched by document
    /// and offsets; null: no accuracy.
    const EvalResult* outcomes = nullptr;
};

/// The classes and properties of the corpus' mentions (see the header comment).
LinkingDifficulty profileLinkingDifficulty(const Corpus& corpus, const kb::KnowledgeBase& kb,
                                           const DifficultyOptions& options);

}  // namespace linkscope::eval
