#pragma once
// What a TF-IDF model is made of, as scikit-learn's TfidfVectorizer parameters. The weighting
// defaults are TfidfVectorizer's own (lowercase, smooth idf, raw term counts, l2-normalized rows),
// so that scores can be compared with published pipelines; the analyzer and n-gram range say
// which terms are counted. They default to BioSyn's character 1-2 grams (scikit-learn's own
// default is word unigrams); Le & Nguyen use characters 2-5 and, separately, words without stop
// words.
#include <cstdint>
#include <string>

namespace linkscope::retrieval {

enum class Analyzer : std::uint8_t {
    Char,  ///< sklearn analyzer='char': character n-grams over the whole string, spaces included
    Word,  ///< sklearn analyzer='word': token_pattern (?u)\b\w\w+\b, then word n-grams
};

enum class Norm : std::uint8_t { None, L1, L2 };

struct TfidfSettings {
    Analyzer analyzer = Analyzer::Char;
    unsigned minN = 1;  ///< ngram_range lower bound (>= 1)
    unsigned maxN = 2;  ///< ngram_range upper bound (>= minN)
    bool lowercase = true;
    /// Remove scikit-learn's ENGLISH_STOP_WORDS before forming word n-grams (stop_words='english').
    /// Word analyzer only: scikit-learn ignores stop words for character analyzers, and so do we.
    bool englishStopWords = false;
    Norm norm = Norm::L2;
    bool useIdf = true;
    bool smoothIdf = true;     ///< idf = ln((1 + n) / (1 + df)) + 1; otherwise ln(n / df) + 1
    bool sublinearTf = false;  ///< tf = 1 + ln(count) instead of count

    bool operator==(const TfidfSettings&) const = default;

    /// BioSyn's sparse representation: TfidfVectorizer(analyzer='char', ngram_range=(1, 2)).
    static TfidfSettings bioSyn();
    /// Le & Nguyen's first setting: character 2-5 grams.
    static TfidfSettings leNguyenChars();
    /// Le & Nguyen's second setting: word unigrams, English stop words removed.
    static TfidfSettings leNguyenWords();

    /// Throws linkscope::Error when the settings cannot be used (minN == 0, minN > maxN, or an
    /// n-gram order above 64, which no analyzer here needs and which would make terms unbounded).
    void validate() const;

    /// One line for messages and reports, e.g. "char 1-2, lowercase, l2, smooth idf".
    std::string describe() const;
};

}  // namespace linkscope::retrieval
