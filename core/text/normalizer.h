#pragma once
// The normalization applied to mentions and dictionary names before they are compared.
//
// With the default options it reproduces BioSyn's TextPreprocess.run (dmis-lab/BioSyn,
// src/biosyn/preprocesser.py), step for step:
//   1. lower-case the text;
//   2. when a spelling map is given, split on whitespace, replace every token that is a known
//      misspelling by its correction and join the tokens with single spaces;
//   3. remove punctuation: split on runs of whitespace and punctuation characters (BioSyn's
//      regex `[\s<string.punctuation>]+`) and join the pieces with single spaces;
//   4. strip surrounding whitespace.
// and then extends it to Unicode, because corpora and vocabularies are not ASCII:
//   - lower-casing is ICU's full Unicode mapping in the root locale ("ΑΒΓ" -> "αβγ",
//     "STRASSE" -> "strasse", final sigma handled), as Python's str.lower() does;
//   - whitespace is every character with the Unicode White_Space property (Python's \s also
//     matches the control characters U+001C..U+001F, which never occur in names; they are kept);
//   - punctuation is always the 32 ASCII characters of Python's string.punctuation (including
//     symbols such as + < = > | ~ that Unicode classes as symbols) and, with
//     unicodePunctuation (default on), every character of general category P* (dashes such as
//     U+2013, curly quotes, U+00B7 ...). Non-ASCII symbols (S*, e.g. "±", "°") are kept.
//   - optionally (stripAccents, default off) accents are removed: NFD, drop the non-spacing
//     marks (Mn), NFC again, so "Sjögren" -> "sjogren". It runs after lower-casing and before
//     spelling correction. It is off by default because BioSyn does not do it and because it
//     merges names that differ only by their marks.
//
// The input must be valid UTF-8 (everything read through LineReader is); ill-formed input is an
// Error rather than a silently altered name. A Normalizer never changes after construction, so
// one instance may serve any number of threads; ASCII text (nearly all of MEDIC and the
// corpora) takes a table-driven path that touches no ICU at all.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::text {

class SpellingMap;

struct NormalizerOptions {
    bool lowercase = true;
    bool removePunctuation = true;
    /// Also treat every Unicode punctuation character (P*) as punctuation, not only ASCII's.
    bool unicodePunctuation = true;
    /// NFD + remove non-spacing marks + NFC. Off by default (see the header comment).
    bool stripAccents = false;
    /// Characters never treated as punctuation, BioSyn's `ignore_punctuations` (its query
    /// preprocessing keeps "|" so that the parts of a split composite mention stay separated).
    std::string keepCharacters;
    /// Token-by-token spelling correction; none when null.
    std::shared_ptr<const SpellingMap> spelling;
};

/// BioSyn's exact TextPreprocess: lower-case, optional spelling map, ASCII punctuation only.
NormalizerOptions bioSynOptions(std::shared_ptr<const SpellingMap> spelling = nullptr);

class Normalizer {
public:
    explicit Normalizer(NormalizerOptions options = {});
    ~Normalizer();
    Normalizer(const Normalizer&);
    Normalizer& operator=(const Normalizer&);
    Normalizer(Normalizer&&) noexcept;
    Normalizer& operator=(Normalizer&&) noexcept;

    /// The normalized form of text. Throws Error when text is not valid UTF-8.
    std::string normalize(std::string_view text) const;
    /// Same, writing into out (its capacity is reused: convenient in loops over millions of names).
    void normalizeInto(std::string_view text, std::string& out) const;

    const NormalizerOptions& options() const noexcept { return options_; }

private:
    struct Tables;  // per-instance lookup tables derived from the options
    NormalizerOptions options_;
    std::unique_ptr<const Tables> tables_;
};

}  // namespace linkscope::text
