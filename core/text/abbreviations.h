#pragma once
// Abbreviation definitions found in running text, after Schwartz & Hearst (2003), "A simple
// algorithm for identifying abbreviation definitions in biomedical text" (PSB 2003), and their
// expansion inside entity mentions of the same document ("HD patients" -> "Huntington disease
// patients"), which is how BioSyn and most linkers resolve abbreviated mentions.
//
// Detection, as in the paper and its reference Java implementation:
//   - candidates are "long form (short form)" and, when the parenthesised text has more than two
//     words or is longer than the text before it, "short form (long form)", where the short form
//     is then the single word before the parenthesis and must contain a capital letter;
//   - a parenthesis opens after white space; its content ends at the matching ")" (nesting is
//     respected) and is cut at the first ", " or "; " ("(ToM; Smith 2009)" -> "ToM");
//   - the long-form candidate is the text before "(" back to the start of its clause: the text
//     start, a line break, ". ", ", ", "; ", a ")" or an enclosing "(";
//   - a short form is valid with 2 to 10 characters, at most 2 words, at least one letter and an
//     alphanumeric first character;
//   - findBestLongForm matches the short form's letters and digits right to left against the
//     long-form candidate (case-insensitively), the first one at the start of a word, and keeps
//     the text from the word of that match on;
//   - the pair is rejected when the long form is shorter than the short form, contains the short
//     form as a word, or has more than min(|A| + 5, |A| * 2) words (|A| = letters and digits of
//     the short form; words split at white space and hyphens).
// Two guards are added to the paper's algorithm, each fixing a wrong definition seen in the NCBI
// Disease test set: a long form that is one token without lower-case letters is refused ("The
// ATM (A-T, mutated) gene" is not a definition of A-T), and so is a long form whose words after
// the short form's last matched character contain "and" or "or" ("spinocerebellar ataxias 1
// and 2 (SCA1, ...)" does not define SCA1 as both).
// Every parenthesis is examined, nested ones included, so "(see heat shock factor (HSF))"
// yields HSF. Known limits of the algorithm, kept as the paper has them: letters must occur in
// order ("myotonic dystrophy (DM)" is missed), and the right-to-left match takes the last
// occurrence of a letter, so "hereditary hemochromatosis (HH)" yields "hemochromatosis" (both
// H's are found in that word); Ab3P, which BioSyn used, gets the latter right.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::text {

/// A half-open range [begin, end).
struct TextSpan {
    std::size_t begin = 0;
    std::size_t end = 0;
    friend bool operator==(const TextSpan&, const TextSpan&) = default;
};

struct AbbreviationDefinition {
    std::string shortForm;  ///< e.g. "HSF"
    std::string longForm;   ///< e.g. "heat shock transcription factor"
    /// Offsets in characters (Unicode code points), the unit of PubTator offsets.
    TextSpan shortSpan;
    TextSpan longSpan;
    /// The same ranges in bytes of the UTF-8 text.
    TextSpan shortBytes;
    TextSpan longBytes;
    /// True for the "short form (long form)" order.
    bool longFormInParentheses = false;
};

/// Every abbreviation definition of text (valid UTF-8; throws Error otherwise), in text order.
/// For a PubTator document pass title + "\n" + abstract: the offsets then match the corpus'.
std::vector<AbbreviationDefinition> findAbbreviations(std::string_view text);

struct ExpandedMention {
    std::string text;
    /// Indexes into the definitions passed to expandAbbreviations, one per short form that was
    /// replaced at least once, in order of first replacement. Empty when nothing was replaced.
    std::vector<std::size_t> applied;
};

/// How many times expandAbbreviations re-reads its output for short forms inside long forms.
inline constexpr int kMaxExpansionPasses = 4;

/// Replaces every whole-token occurrence of a defined short form in mention by its long form.
/// A token boundary is the start or end of the mention or a character that is neither a letter
/// nor a digit, so "HD", "HD patients", "HD-related" and "HD/DM" all expand; "HDL" and "pHD"
/// do not. Matching is case-sensitive (short forms are). When a short form is defined more than
/// once, its first definition wins; when two short forms could match at one place, the longer
/// wins. A short form written right after its own long form, "long form (SF)", is the mention
/// quoting the definition and is left as it is. Long forms that hold short forms are expanded in
/// turn ("IDMS" -> "isolated DMS" -> "isolated diffuse mesangial sclerosis"), as BioSyn's
/// fixpoint loop does, for at most kMaxExpansionPasses passes (cyclic definitions terminate).
ExpandedMention expandAbbreviations(std::string_view mention, std::span<const AbbreviationDefinition> definitions);

}  // namespace linkscope::text
