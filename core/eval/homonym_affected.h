#pragma once
// Mentions affected by homonyms, BELHD's approximation (Garda & Leser 2024, §3 and Appendix A):
// a mention is affected when one of its gold entities has a name that
//   (a) is a homonym: the KB gives it to more than one entity, and
//   (b) is highly similar to the mention: after lower-casing and removing every character that
//       is not a letter or digit, their normalized Indel similarity (Levenshtein with
//       substitution weight 2, RapidFuzz's normalized_similarity: 1 - D / (|a| + |b|)) is at
//       least minSimilarity. BELHD uses 1, i.e. the two keys are equal.
// A name-based linker will most likely return that shared name, which cannot be resolved to one
// entity. By default (a) is BELHD's: the exact KB string is shared (KnowledgeBase::findByName).
// With homonymsOnMatchKeys two names are also the same name when their BELHD keys are equal, so
// "Cold" and "COLD" of two entities count, as they do for a linker comparing normalized
// strings (NCBI Disease test with MEDIC: 18 mentions affected by default, 34 on match keys;
// BELHD's Table 1 gives 12 / 960 with BELB's CTD diseases). The mention is compared as written
// (before abbreviation expansion), as BELHD compares corpus mentions.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::eval {

struct EvalQuery;

struct HomonymAffectedOptions {
    double minSimilarity = 1.0;
    bool homonymsOnMatchKeys = false;
};

/// BELHD Appendix A's preprocessing: lower case (Unicode simple mapping), letters and digits only.
std::string homonymMatchKey(std::string_view text);

/// 1 - IndelDistance(a, b) / (|a| + |b|) over code points, 1 for two empty strings.
double indelSimilarity(std::string_view a, std::string_view b);

/// Sets EvalQuery::homonymAffected on every query; returns how many are affected.
std::size_t markHomonymAffected(std::span<EvalQuery> queries, const kb::KnowledgeBase& kb,
                                const HomonymAffectedOptions& options = {});

}  // namespace linkscope::eval
