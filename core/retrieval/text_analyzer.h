#pragma once
// The terms TF-IDF counts in a string, produced exactly as scikit-learn's TfidfVectorizer
// produces them (its build_analyzer()), so that vocabularies, counts and weights can be compared
// with published Python pipelines term for term:
//  - preprocessing: lowercase=True lower-cases like Python's str.lower() (full Unicode mapping);
//    no accent stripping (strip_accents=None).
//  - analyzer='char': every run of two or more whitespace characters (Python's \s) becomes one
//    space (a single tab or no-break space is left as it is, as in scikit-learn), then every
//    n-gram of code points for n in [minN, maxN] over the whole string, spaces included; a string
//    shorter than n has no n-grams of that order.
//  - analyzer='word': tokens are maximal runs of two or more word characters (token_pattern
//    (?u)\b\w\w+\b, \w being Python's Unicode letters, numerics and '_'), stop words removed,
//    then word n-grams joined by one space.
// Linkscope's inputs are already normalized (lower-cased, punctuation handled by text::Normalizer);
// the lower-casing here is kept for fidelity with scikit-learn, not relied upon.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "retrieval/tfidf_settings.h"

namespace linkscope::retrieval {

/// Lower-cases valid UTF-8 like Python's str.lower(): full Unicode case mapping of the root
/// locale through ICU (so "İ" becomes "i̇" and a final capital sigma "ς"); ASCII takes a fast path.
std::string lowercaseLikePython(std::string_view utf8);

/// Python's \s for str patterns (str.isspace()): tab to carriage return, U+001C-U+001F, space,
/// U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool isPythonWhitespace(char32_t c) noexcept;

/// Python's \w for str patterns: letters (L*), characters with a numeric type, and '_'.
bool isPythonWordCharacter(char32_t c) noexcept;

/// Splits strings into terms. Keeps its scratch buffers between calls, so one analyzer per thread.
class TermAnalyzer {
public:
    /// Throws linkscope::Error for settings that fail TfidfSettings::validate().
    explicit TermAnalyzer(const TfidfSettings& settings);

    /// The terms of `text` in scikit-learn's order (all n-grams of the lowest order first), with
    /// repetitions, which are the term counts. The views stay valid until the next call.
    /// Throws linkscope::Error when `text` is not valid UTF-8.
    std::span<const std::string_view> analyze(std::string_view text);

    const TfidfSettings& settings() const noexcept { return settings_; }

private:
    void preprocess(std::string_view text, bool ascii);
    void preprocessAscii(std::string_view text);
    void charNgrams();
    void wordNgrams();

    TfidfSettings settings_;
    std::string text_;                       // preprocessed text; character n-grams point into it
    std::string joined_;                     // word n-grams of two or more words
    bool ascii_ = false;                     // text_ is ASCII: characters are bytes, boundaries_ unused
    std::vector<std::uint32_t> boundaries_;  // byte offset of every code point of text_, plus the end
    std::vector<std::pair<std::uint32_t, std::uint32_t>> tokens_;  // word tokens: offset, length in text_
    std::vector<std::string_view> terms_;
};

/// The terms as strings (for tests and tools; the engine uses TermAnalyzer).
std::vector<std::string> analyzeTerms(const TfidfSettings& settings, std::string_view text);

}  // namespace linkscope::retrieval
