#pragma once
// A TF-IDF model equivalent to scikit-learn's TfidfVectorizer: same terms (see text_analyzer.h),
// same vocabulary order (terms sorted by code point, which is UTF-8 byte order), same weights:
//   idf(t) = ln((1 + n) / (1 + df(t))) + 1    (smooth_idf=True; n documents, df documents with t)
//   w(t, d) = count(t, d) * idf(t), then the row divided by its l2 norm
// (or the variants TfidfSettings selects). Weights are computed in double, as scikit-learn's
// float64, and stored as float: they agree with scikit-learn to about 1e-7.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "retrieval/term_table.h"
#include "retrieval/text_analyzer.h"
#include "retrieval/tfidf_settings.h"

namespace linkscope::retrieval {

struct TermWeight {
    std::uint32_t term = 0;  ///< id in the vectorizer's vocabulary
    float weight = 0.0f;
};

/// One document as a sparse row: sorted by term id, each term once, zero weights left out.
using SparseVector = std::vector<TermWeight>;

/// Many documents by term (CSC): term t's column holds documents/weights[offsets[t] ..
/// offsets[t + 1]), sorted by document. This is an inverted index's postings.
struct SparseColumns {
    std::vector<std::uint64_t> offsets{0};
    std::vector<std::uint32_t> documents;
    std::vector<float> weights;
};

/// Many documents as sparse rows (CSR): row i holds terms[offsets[i] .. offsets[i + 1]). Term is
/// the type of the term ids: 32 bits (SparseRows), or 16 (NarrowSparseRows) for a vocabulary of
/// at most 65,536 terms.
template <class Term>
struct BasicSparseRows {
    std::vector<std::uint64_t> offsets{0};
    std::vector<Term> terms;
    std::vector<float> weights;

    std::size_t rows() const noexcept { return offsets.size() - 1; }
    std::span<const Term> rowTerms(std::size_t row) const noexcept {
        return std::span(terms).subspan(offsets[row], offsets[row + 1] - offsets[row]);
    }
    std::span<const float> rowWeights(std::size_t row) const noexcept {
        return std::span(weights).subspan(offsets[row], offsets[row + 1] - offsets[row]);
    }
    std::size_t memoryBytes() const noexcept {
        return offsets.capacity() * sizeof(std::uint64_t) + terms.capacity() * sizeof(Term) +
               weights.capacity() * sizeof(float);
    }
};
using SparseRows = BasicSparseRows<std::uint32_t>;
/// Rows of a small vocabulary: BioSyn's character 1-2 grams of a knowledge base's names usually
/// number far fewer than 65,536 (the generated UMLS-size one's fit), and a UMLS-size
/// dictionary's rows (about 45 per name, 5.3 M names) take 0.47 GiB less with 16-bit term ids
/// (a UMLS-size evaluation may take at most 8 GB; benchmarks/sparse_scale reports its peak).
using NarrowSparseRows = BasicSparseRows<std::uint16_t>;
/// Whichever of the two the fitted vocabulary allows (TfidfVectorizer::fitTransformCompact).
using CompactSparseRows = std::variant<NarrowSparseRows, SparseRows>;
inline constexpr std::size_t kNarrowVocabularyLimit = std::size_t{1} << 16;

class TfidfVectorizer {
public:
    /// An unfitted model with these settings; throws Error for invalid settings.
    explicit TfidfVectorizer(const TfidfSettings& settings = {});

    /// Learns the vocabulary and the idf from `documents` (every document counts, duplicates
    /// too, as in scikit-learn) and returns their weighted rows, as fit_transform() does. An
    /// empty collection gives an empty vocabulary (scikit-learn refuses it; a Linkscope KB may be
    /// empty while it is being built). Throws Error for a document that is not valid UTF-8.
    /// `threads` (0: one per hardware thread) share the work; the result does not depend on it.
    SparseRows fitTransform(std::span<const std::string_view> documents, unsigned threads = 1);
    /// Same, with 16-bit term ids when the fitted vocabulary has at most kNarrowVocabularyLimit
    /// terms (chosen after the counting pass, so the wide ids are never held); same weights.
    CompactSparseRows fitTransformCompact(std::span<const std::string_view> documents, unsigned threads = 1);
    /// Same, by term instead of by document (what an inverted index needs, without the rows).
    /// At most 2^32 - 1 documents.
    SparseColumns fitTransformColumns(std::span<const std::string_view> documents, unsigned threads = 1);
    void fit(std::span<const std::string_view> documents, unsigned threads = 1) {
        (void)fitTransformColumns(documents, threads);
    }

    /// The weighted row of `text`; terms outside the vocabulary are ignored, and the norm is
    /// taken over the known terms only (as scikit-learn's transform()). A text with no known
    /// term gives an empty vector. Throws Error when the model is not fitted or `text` is not
    /// valid UTF-8.
    SparseVector transform(std::string_view text) const;
    /// Same, with the caller's analyzer (built from settings(); one per thread) and output.
    void transform(std::string_view text, TermAnalyzer& analyzer, SparseVector& out) const;

    /// A fitted model from its saved parts: terms sorted strictly ascending, one idf per term.
    /// Throws Error naming the first inconsistency.
    static TfidfVectorizer restore(const TfidfSettings& settings, std::span<const std::string_view> sortedTerms,
                                   std::vector<double> idf, std::uint64_t documentCount);

    const TfidfSettings& settings() const noexcept { return settings_; }
    bool fitted() const noexcept { return fitted_; }
    std::uint64_t documentCount() const noexcept { return documentCount_; }
    std::size_t vocabularySize() const noexcept { return idf_.size(); }
    std::string_view term(std::uint32_t id) const noexcept { return terms_.term(id); }
    /// The id of a term, or detail::TermTable::npos when it is not in the vocabulary.
    std::uint32_t termId(std::string_view term) const noexcept { return terms_.find(term); }
    double idf(std::uint32_t id) const noexcept { return idf_[id]; }
    std::span<const double> idfs() const noexcept { return idf_; }
    std::size_t memoryBytes() const noexcept;

private:
    /// tf-idf of a term before normalization.
    double rawWeight(std::uint32_t term, double count) const noexcept {
        const double tf = settings_.sublinearTf ? 1.0 + std::log(count) : count;
        return settings_.useIdf ? tf * idf_[term] : tf;
    }
    /// Turns counts (already in `row`, sorted by term, as weights) into normalized weights.
    void weigh(std::span<TermWeight> row) const;
    /// The fitted state from the sorted vocabulary and each term's document frequency (tfidf_fit.cpp).
    /// The second pass of fitTransform: the rows of the documents counted in `pass` (tfidf_fit.cpp).
    template <class Rows, class FirstPass>
    Rows writeRows(std::span<const std::string_view> documents, const FirstPass& pass) const;
    void fitVocabulary(detail::TermTable sortedTerms, std::span<const std::uint32_t> documentFrequency,
                       std::uint64_t documents);

    TfidfSettings settings_;
    bool fitted_ = false;
    std::uint64_t documentCount_ = 0;
    detail::TermTable terms_;  // ids are positions in sorted order
    std::vector<double> idf_;
};

}  // namespace linkscope::retrieval
