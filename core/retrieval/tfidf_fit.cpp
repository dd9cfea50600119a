// TfidfVectorizer::fitTransformColumns and fitTransform: learning the vocabulary and the idf and
// weighing the documents, on several threads, in two passes over the text.
//
//  1. Each thread counts the document frequency of the terms of a contiguous share of the
//     documents with its own term table (and how many distinct terms each document has). The
//     shares' vocabularies are merged and sorted (scikit-learn's order) and the idf computed.
//  2. Each thread analyses its documents again, one at a time: a document's counts, sorted by
//     term, are weighed exactly as transform() weighs a text (weigh()), and written straight into
//     their place in the columns (or rows), which is known from pass 1. In the columns the
//     documents land in document order because the shares are contiguous.
//
// Why two passes: keeping every document's counts from pass 1 for pass 2, as an earlier version
// did, held as many (term, count) pairs as the output itself, so the fit needed twice the output's
// memory at its peak, a large share of the 8 GB a UMLS-size evaluation (5.3 M names) may take.
// Analysing a name again costs a small part of the fit (benchmarks/sparse_scale times the build).
// The result does not depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "retrieval/tfidf.h"
#include "util/error.h"
#include "util/parallel.h"

namespace linkscope::retrieval {
namespace {

// Pass 1's counts of a contiguous share of the documents, with the share's own term ids.
struct ShareCounts {
    std::size_t firstDocument = 0;
    std::size_t endDocument = 0;
    detail::TermTable terms;
    std::vector<std::uint32_t> documentFrequency;  // per share term
    std::vector<std::uint32_t> sortedId;           // per share term: its id in the sorted vocabulary
    std::vector<std::uint32_t> distinctTerms;      // per document of the share (for the rows' offsets)
};

// Counts through the document that last saw each term, so no per-document sort or map is needed.
void countShare(std::span<const std::string_view> documents, const TfidfSettings& settings, ShareCounts& share) {
    TermAnalyzer analyzer(settings);
    std::vector<std::uint32_t> lastDocument;  // per term: index + 1 (within the share) of the last document with it
    share.distinctTerms.reserve(share.endDocument - share.firstDocument);
    for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) {
        const auto local = static_cast<std::uint32_t>(d - share.firstDocument + 1);
        std::uint32_t distinct = 0;
        for (const std::string_view term : analyzer.analyze(documents[d])) {
            const std::uint32_t id = share.terms.insert(term);
            if (id == share.documentFrequency.size()) {
                share.documentFrequency.push_back(0);
                lastDocument.push_back(0);
            }
            if (lastDocument[id] == local) continue;
            lastDocument[id] = local;
            ++share.documentFrequency[id];
            ++distinct;
        }
        share.distinctTerms.push_back(distinct);
    }
}

std::vector<ShareCounts> countShares(std::span<const std::string_view> documents, const TfidfSettings& settings,
                                     unsigned threads) {
    std::vector<ShareCounts> shares(threads);
    for (unsigned t = 0; t < threads; ++t) {
        shares[t].firstDocument = documents.size() * t / threads;
        shares[t].endDocument = documents.size() * (t + 1) / threads;
    }
    util::runOnThreads(threads, [&](unsigned t) { countShare(documents, settings, shares[t]); });
    return shares;
}

// Pass 2: one document's counts as a row sorted by vocabulary id, counts in `weight` (exact in a
// float up to 2^24 occurrences of one term in one text, as transform() keeps them).
class ShareRowCounter {
public:
    ShareRowCounter(const ShareCounts& share, const TfidfSettings& settings)
        : share_(share), analyzer_(settings), slot_(share.terms.size(), kNone) {}

    void count(std::string_view document, SparseVector& row) {
        row.clear();
        seen_.clear();
        for (const std::string_view term : analyzer_.analyze(document)) {
            const std::uint32_t id = share_.terms.find(term);
            // Pass 1 read the same text with the same analyzer: every term is known.
            if (id == detail::TermTable::npos) throw Error("TF-IDF fit: a document's terms changed between passes");
            if (slot_[id] != kNone) {
                row[slot_[id]].weight += 1.0f;
                continue;
            }
            slot_[id] = static_cast<std::uint32_t>(row.size());
            seen_.push_back(id);
            row.push_back({share_.sortedId[id], 1.0f});
        }
        for (const std::uint32_t id : seen_) slot_[id] = kNone;
        std::sort(row.begin(), row.end(), [](const TermWeight& a, const TermWeight& b) { return a.term < b.term; });
    }

private:
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    const ShareCounts& share_;
    TermAnalyzer analyzer_;
    std::vector<std::uint32_t> slot_;  // per share term: its place in the row being counted, or kNone
    std::vector<std::uint32_t> seen_;
};

std::size_t threadsFor(std::size_t documents, unsigned threads) {
    if (documents >= 0xFFFFFFFFull) throw Error("too many documents for TF-IDF: " + std::to_string(documents));
    // Small collections are not worth a thread each.
    constexpr std::size_t kDocumentsPerThread = 4096;
    return std::clamp<std::size_t>(documents / kDocumentsPerThread, 1, util::threadCount(threads));
}

// Merges the shares' vocabularies, sorted as scikit-learn sorts them (byte order = code point
// order), computes the idf and sets every share's sortedId; returns each sorted term's document
// frequency.
std::vector<std::uint32_t> mergeVocabulary(std::vector<ShareCounts>& shares, detail::TermTable& sorted) {
    detail::TermTable merged;
    std::vector<std::uint32_t> frequency;
    for (auto& share : shares) {
        share.sortedId.resize(share.terms.size());
        for (std::uint32_t id = 0; id < share.terms.size(); ++id) {
            const std::uint32_t global = merged.insert(share.terms.term(id));
            if (global == frequency.size()) frequency.push_back(0);
            frequency[global] += share.documentFrequency[id];
            share.sortedId[id] = global;  // merged id for now
        }
    }
    const std::uint32_t termCount = merged.size();
    std::vector<std::uint32_t> order(termCount);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return merged.term(a) < merged.term(b); });
    std::vector<std::uint32_t> sortedOfMerged(termCount);
    std::vector<std::uint32_t> sortedFrequency(termCount);
    sorted.reserve(termCount);
    for (std::uint32_t i = 0; i < termCount; ++i) {
        sortedOfMerged[order[i]] = i;
        sorted.insert(merged.term(order[i]));
        sortedFrequency[i] = frequency[order[i]];
    }
    for (auto& share : shares)
        for (auto& id : share.sortedId) id = sortedOfMerged[id];
    return sortedFrequency;
}

// Pass 1 and the merge: the shares' counts, the sorted vocabulary and each term's document frequency.
struct FirstPass {
    std::vector<ShareCounts> shares;
    detail::TermTable terms;
    std::vector<std::uint32_t> frequency;
};

FirstPass firstPass(std::span<const std::string_view> documents, const TfidfSettings& settings, unsigned threads) {
    FirstPass pass;
    pass.shares = countShares(documents, settings, static_cast<unsigned>(threadsFor(documents.size(), threads)));
    pass.frequency = mergeVocabulary(pass.shares, pass.terms);
    return pass;
}

}  // namespace

void TfidfVectorizer::fitVocabulary(detail::TermTable sortedTerms, std::span<const std::uint32_t> documentFrequency,
                                    std::uint64_t documents) {
    std::vector<double> idf(documentFrequency.size());
    const double n = static_cast<double>(documents);
    const double smooth = settings_.smoothIdf ? 1.0 : 0.0;
    for (std::size_t i = 0; i < idf.size(); ++i)
        idf[i] = std::log((n + smooth) / (static_cast<double>(documentFrequency[i]) + smooth)) + 1.0;
    terms_ = std::move(sortedTerms);
    idf_ = std::move(idf);
    documentCount_ = documents;
    fitted_ = true;
}

SparseColumns TfidfVectorizer::fitTransformColumns(std::span<const std::string_view> documents, unsigned threads) {
    FirstPass pass = firstPass(documents, settings_, threads);
    fitVocabulary(std::move(pass.terms), pass.frequency, documents.size());
    const std::vector<ShareCounts>& shares = pass.shares;
    const std::vector<std::uint32_t>& frequency = pass.frequency;
    const auto shareCount = static_cast<unsigned>(shares.size());

    SparseColumns columns;
    columns.offsets.assign(frequency.size() + 1, 0);
    for (std::size_t t = 0; t < frequency.size(); ++t) columns.offsets[t + 1] = columns.offsets[t] + frequency[t];
    // Where each share's postings start in each column: after the earlier shares' ones.
    std::vector<std::vector<std::uint64_t>> fill(shares.size());
    {
        std::vector<std::uint64_t> next(columns.offsets.begin(), columns.offsets.end() - 1);
        for (std::size_t s = 0; s < shares.size(); ++s) {
            fill[s] = next;
            for (std::uint32_t id = 0; id < shares[s].terms.size(); ++id)
                next[shares[s].sortedId[id]] += shares[s].documentFrequency[id];
        }
    }
    columns.documents.resize(columns.offsets.back());
    columns.weights.resize(columns.offsets.back());
    util::runOnThreads(shareCount, [&](unsigned t) {
        const ShareCounts& share = shares[t];
        ShareRowCounter counter(share, settings_);
        std::vector<std::uint64_t>& at = fill[t];
        SparseVector row;
        for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) {
            counter.count(documents[d], row);
            weigh(row);
            for (const TermWeight& entry : row) {
                const std::uint64_t p = at[entry.term]++;
                columns.documents[p] = static_cast<std::uint32_t>(d);
                columns.weights[p] = entry.weight;
            }
        }
    });
    return columns;
}

template <class Rows, class FirstPass>
Rows TfidfVectorizer::writeRows(std::span<const std::string_view> documents, const FirstPass& pass) const {
    const std::vector<ShareCounts>& shares = pass.shares;
    const auto shareCount = static_cast<unsigned>(shares.size());
    using Term = typename decltype(Rows::terms)::value_type;
    if (vocabularySize() > std::size_t{std::numeric_limits<Term>::max()} + 1)
        throw Error("TF-IDF: " + std::to_string(vocabularySize()) + " terms do not fit " +
                    std::to_string(8 * sizeof(Term)) + "-bit term ids");

    Rows rows;
    rows.offsets.assign(documents.size() + 1, 0);
    for (const ShareCounts& share : shares)
        for (std::size_t d = share.firstDocument; d < share.endDocument; ++d)
            rows.offsets[d + 1] = rows.offsets[d] + share.distinctTerms[d - share.firstDocument];
    rows.terms.resize(rows.offsets.back());
    rows.weights.resize(rows.offsets.back());
    util::runOnThreads(shareCount, [&](unsigned t) {
        const ShareCounts& share = shares[t];
        ShareRowCounter counter(share, settings_);
        SparseVector row;
        for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) {
            counter.count(documents[d], row);
            weigh(row);
            std::uint64_t p = rows.offsets[d];
            for (const TermWeight& entry : row) {
                rows.terms[p] = static_cast<Term>(entry.term);
                rows.weights[p++] = entry.weight;
            }
        }
    });
    return rows;
}

SparseRows TfidfVectorizer::fitTransform(std::span<const std::string_view> documents, unsigned threads) {
    FirstPass pass = firstPass(documents, settings_, threads);
    fitVocabulary(std::move(pass.terms), pass.frequency, documents.size());
    return writeRows<SparseRows>(documents, pass);
}

CompactSparseRows TfidfVectorizer::fitTransformCompact(std::span<const std::string_view> documents, unsigned threads) {
    FirstPass pass = firstPass(documents, settings_, threads);
    fitVocabulary(std::move(pass.terms), pass.frequency, documents.size());
    if (vocabularySize() <= kNarrowVocabularyLimit) return writeRows<NarrowSparseRows>(documents, pass);
    return writeRows<SparseRows>(documents, pass);
}

}  // namespace linkscope::retrieval
