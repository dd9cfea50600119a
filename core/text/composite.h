#pragma once
// Splitting composite mentions: one mention that names several concepts through a
// coordination ("breast and ovarian cancer", id list "D001943|D010051") becomes one full name
// per concept ("breast cancer", "ovarian cancer"), so that each can be linked on its own.
//
// The mention is read as conjuncts separated by "and", "or", "nor", "and/or", "as well as", "&",
// commas, semicolons and slashes ("A, B, and C tumors", "cleft lip/palate"); brackets are
// ignored. Then the shared words are distributed, by the first of these forms that applies:
//   Enumeration        "type 1 or 2 diabetes" -> "type 1 diabetes", "type 2 diabetes"
//                      (the conjuncts are numbers, single capitals, roman numerals or short
//                      codes such as "C6": the words on both sides are shared)
//   SharedPreposition  "deficiency of both X and Y" -> "deficiency of X", "deficiency of Y"
//                      (head first; "both"/"either" are dropped, "the" is kept and shared)
//   SharedHead         "breast and ovarian cancer" -> "breast cancer", "ovarian cancer"
//                      (the words after the last conjunct are shared; see below for where the
//                      last conjunct ends); "aplasia or hypoplasia of the thymus" shares the
//                      prepositional phrase "of the thymus"
//   SharedModifier     "colorectal adenomas and carcinoma" -> "colorectal adenomas",
//                      "colorectal carcinoma"; "cleft lip/palate" (the last conjunct is one
//                      word and the first has more: the words before the first one are shared)
//   FullNames          "Prader-Willi syndrome and Angelman syndrome" (nothing is shared)
// Where the last conjunct of a SharedHead ends is a guess without a vocabulary: the shared head
// is the last word plus the adjectives before it ("Becker muscular dystrophy" -> head
// "muscular dystrophy", but "soft tissue tumors" -> head "tumors"), except that parallel
// modifiers such as "male and female breast cancer" share everything after the modifier. When
// the first conjunct already ends in a disease word ("lung cancer and breast carcinoma") the
// conjuncts are full names. Words before the first conjunct stay with it: "sporadic breast and
// ovarian cancers" -> "sporadic breast cancers", "ovarian cancers" (as BioSyn does).
//
// A caller that has a vocabulary can pass isKnownName: every way of splitting that has the
// expected number of parts is then scored by how many parts the vocabulary knows, and the
// heuristic choice above is replaced only by one with strictly more known parts.
//
// The parts come in mention order. Corpora do not promise that their id lists follow that
// order (NCBI Disease writes "pineal and retinal tumours" with the retina's id first), so the
// parts are aligned with the ids by count, not position; link each part and compare sets.
//
// When the mention cannot be split into exactly the expected number of parts the answer is
// std::nullopt: parts are never invented or merged to reach a count.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::text {

enum class CompositeForm {
    Single,  ///< one part was expected: the mention itself
    Enumeration,
    SharedPreposition,
    SharedHead,
    SharedModifier,
    FullNames,
};

std::string_view toString(CompositeForm form) noexcept;

struct CompositeSplit {
    std::vector<std::string> parts;
    CompositeForm form = CompositeForm::Single;
};

struct CompositeOptions {
    /// Optional vocabulary lookup of a candidate part (as written, not normalized).
    std::function<bool(std::string_view)> isKnownName;
};

/// Splits mention (valid UTF-8) into expectedParts names, or returns nullopt when it cannot.
/// expectedParts == 1 returns the mention itself (trimmed); 0 returns nullopt.
std::optional<CompositeSplit> splitComposite(std::string_view mention, std::size_t expectedParts,
                                             const CompositeOptions& options = {});

}  // namespace linkscope::text
