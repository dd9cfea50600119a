#include "retrieval/tfidf.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::retrieval {
namespace {

// Sorts a row by term and merges repeated terms, adding their counts (kept in `weight`; counts
// are exact in a float up to 2^24 occurrences of one term in one text).
void mergeRepeatedTerms(SparseVector& row) {
    std::sort(row.begin(), row.end(), [](const TermWeight& a, const TermWeight& b) { return a.term < b.term; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (kept > 0 && row[kept - 1].term == row[i].term)
            row[kept - 1].weight += row[i].weight;
        else
            row[kept++] = row[i];
    }
    row.resize(kept);
}

}  // namespace

TfidfVectorizer::TfidfVectorizer(const TfidfSettings& settings) : settings_(settings) { settings_.validate(); }

// Both weigh() and fitTransformColumns() (tfidf_fit.cpp) compute in double, in scikit-learn's order: tf (or
// 1 + ln tf), times idf, the norm summed over the row's terms in ascending term order, then
// each weight divided by the norm. The same arithmetic in the same order gives a document the
// same float weights whether it was fitted or transformed.
void TfidfVectorizer::weigh(std::span<TermWeight> row) const {
    double norm = 0.0;
    if (settings_.norm != Norm::None) {
        for (const auto& entry : row) {
            const double v = rawWeight(entry.term, entry.weight);
            norm += settings_.norm == Norm::L2 ? v * v : std::abs(v);
        }
        if (settings_.norm == Norm::L2) norm = std::sqrt(norm);
    }
    if (norm == 0.0) norm = 1.0;  // scikit-learn leaves all-zero rows as they are
    for (auto& entry : row) entry.weight = static_cast<float>(rawWeight(entry.term, entry.weight) / norm);
}

SparseVector TfidfVectorizer::transform(std::string_view text) const {
    TermAnalyzer analyzer(settings_);
    SparseVector row;
    transform(text, analyzer, row);
    return row;
}

void TfidfVectorizer::transform(std::string_view text, TermAnalyzer& analyzer, SparseVector& out) const {
    if (!fitted_) throw Error("TF-IDF model used before it was fitted");
    if (!(analyzer.settings() == settings_))
        throw Error("TF-IDF analyzer settings (" + analyzer.settings().describe() + ") differ from the model's (" +
                    settings_.describe() + ")");
    out.clear();
    for (const std::string_view term : analyzer.analyze(text))
        if (const std::uint32_t id = terms_.find(term); id != detail::TermTable::npos) out.push_back({id, 1.0f});
    mergeRepeatedTerms(out);
    weigh(out);
}

TfidfVectorizer TfidfVectorizer::restore(const TfidfSettings& settings, std::span<const std::string_view> sortedTerms,
                                         std::vector<double> idf, std::uint64_t documentCount) {
    TfidfVectorizer model(settings);
    if (idf.size() != sortedTerms.size())
        throw Error("TF-IDF model has " + std::to_string(sortedTerms.size()) + " terms but " +
                    std::to_string(idf.size()) + " idf values");
    if (documentCount == 0 && !sortedTerms.empty()) throw Error("TF-IDF model has terms but no documents");
    model.terms_.reserve(sortedTerms.size());
    for (std::size_t i = 0; i < sortedTerms.size(); ++i) {
        const std::string_view term = sortedTerms[i];
        if (term.empty()) throw Error("TF-IDF term " + std::to_string(i) + " is empty");
        if (!utf8::isValid(term)) throw Error("TF-IDF term " + std::to_string(i) + " is not valid UTF-8");
        if (i > 0 && !(sortedTerms[i - 1] < term))
            throw Error("TF-IDF terms are not sorted and unique at term " + std::to_string(i));
        if (!std::isfinite(idf[i]) || idf[i] <= 0.0)
            throw Error("TF-IDF idf of term " + std::to_string(i) + " is not a positive number");
        model.terms_.insert(term);
    }
    model.idf_ = std::move(idf);
    model.documentCount_ = documentCount;
    model.fitted_ = true;
    return model;
}

std::size_t TfidfVectorizer::memoryBytes() const noexcept {
    return terms_.memoryBytes() + idf_.capacity() * sizeof(double);
}

}  // namespace linkscope::retrieval
