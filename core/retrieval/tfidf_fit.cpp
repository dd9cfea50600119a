// TfidfVectorizer::fitTransformColumns: learning the vocabulary and the idf and weighing the
// documents by term, on several threads. Each thread counts the terms of a contiguous share of
// the documents with its own term table; the shares' vocabularies are then merged and sorted
// (scikit-learn's order), and each thread writes its documents into the columns, where they
// land in document order because the shares are contiguous. The result does not depend on the
// number of threads.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "retrieval/parallel.h"
#include "retrieval/tfidf.h"
#include "util/error.h"

namespace linkscope::retrieval {
namespace {

// The term counts of a contiguous share of the documents, with the share's own term ids.
struct ShareCounts {
    std::size_t firstDocument = 0;
    std::size_t endDocument = 0;
    detail::TermTable terms;
    std::vector<std::uint64_t> rowOffsets{0};  // per document of the share
    std::vector<std::uint32_t> rowTerms;       // distinct terms of each document, first occurrence first
    std::vector<std::uint32_t> rowCounts;
    std::vector<std::uint32_t> documentFrequency;  // per share term
    std::vector<std::uint32_t> globalId;           // per share term: id in the merged vocabulary
    std::vector<std::uint64_t> fill;               // per sorted term: where the share's postings go
};

// Counts through the document that last saw each term, so no per-document sort or map is needed.
void countShare(std::span<const std::string_view> documents, const TfidfSettings& settings, ShareCounts& share) {
    TermAnalyzer analyzer(settings);
    // A document of b bytes has at most b distinct n-grams of each order (fewer words): reserving
    // that much at once saves the copies of a growing vector.
    std::size_t bytes = 0;
    for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) bytes += documents[d].size();
    const std::size_t orders = settings.maxN - settings.minN + 1;
    share.rowTerms.reserve(bytes * std::min<std::size_t>(orders, 4));
    share.rowCounts.reserve(bytes * std::min<std::size_t>(orders, 4));
    share.rowOffsets.reserve(share.endDocument - share.firstDocument + 1);
    std::vector<std::uint32_t> lastDocument;  // per term: index + 1 (within the share) of the last document with it
    std::vector<std::uint64_t> position;      // per term: where its count is in rowCounts
    for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) {
        const auto local = static_cast<std::uint32_t>(d - share.firstDocument + 1);
        for (const std::string_view term : analyzer.analyze(documents[d])) {
            const std::uint32_t id = share.terms.insert(term);
            if (id == share.documentFrequency.size()) {
                share.documentFrequency.push_back(0);
                lastDocument.push_back(0);
                position.push_back(0);
            }
            if (lastDocument[id] == local) {
                ++share.rowCounts[position[id]];
                continue;
            }
            lastDocument[id] = local;
            position[id] = share.rowTerms.size();
            ++share.documentFrequency[id];
            share.rowTerms.push_back(id);
            share.rowCounts.push_back(1);
        }
        share.rowOffsets.push_back(share.rowTerms.size());
    }
}

}  // namespace

SparseColumns TfidfVectorizer::fitTransformColumns(std::span<const std::string_view> documents, unsigned threads) {
    if (documents.size() >= 0xFFFFFFFFull)
        throw Error("too many documents for TF-IDF: " + std::to_string(documents.size()));
    // Small collections are not worth a thread each.
    constexpr std::size_t kDocumentsPerThread = 4096;
    threads = static_cast<unsigned>(std::clamp<std::size_t>(documents.size() / kDocumentsPerThread, 1,
                                                            detail::threadCount(threads)));
    std::vector<ShareCounts> shares(threads);
    for (unsigned t = 0; t < threads; ++t) {
        shares[t].firstDocument = documents.size() * t / threads;
        shares[t].endDocument = documents.size() * (t + 1) / threads;
    }
    detail::runOnThreads(threads, [&](unsigned t) { countShare(documents, settings_, shares[t]); });

    // The merged vocabulary, sorted as scikit-learn sorts it (byte order = code point order).
    detail::TermTable merged;
    std::vector<std::uint32_t> documentFrequency;
    for (auto& share : shares) {
        share.globalId.resize(share.terms.size());
        for (std::uint32_t id = 0; id < share.terms.size(); ++id) {
            const std::uint32_t global = merged.insert(share.terms.term(id));
            if (global == documentFrequency.size()) documentFrequency.push_back(0);
            documentFrequency[global] += share.documentFrequency[id];
            share.globalId[id] = global;
        }
    }
    const std::uint32_t termCount = merged.size();
    std::vector<std::uint32_t> order(termCount);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return merged.term(a) < merged.term(b); });
    std::vector<std::uint32_t> sortedId(termCount);
    detail::TermTable sorted;
    sorted.reserve(termCount);
    std::vector<double> idf(termCount);
    const double n = static_cast<double>(documents.size());
    const double smooth = settings_.smoothIdf ? 1.0 : 0.0;
    SparseColumns columns;
    columns.offsets.assign(std::size_t{termCount} + 1, 0);
    for (std::uint32_t i = 0; i < termCount; ++i) {
        sortedId[order[i]] = i;
        sorted.insert(merged.term(order[i]));
        const std::uint32_t df = documentFrequency[order[i]];
        idf[i] = std::log((n + smooth) / (static_cast<double>(df) + smooth)) + 1.0;
        columns.offsets[i + 1] = columns.offsets[i] + df;
    }
    terms_ = std::move(sorted);
    idf_ = std::move(idf);
    documentCount_ = documents.size();
    fitted_ = true;

    // Where each share's postings start in each column: after the earlier shares' ones.
    {
        std::vector<std::uint64_t> next(columns.offsets.begin(), columns.offsets.end() - 1);
        for (auto& share : shares) {
            share.fill = next;
            for (std::uint32_t id = 0; id < share.terms.size(); ++id)
                next[sortedId[share.globalId[id]]] += share.documentFrequency[id];
        }
    }
    columns.documents.resize(columns.offsets.back());
    columns.weights.resize(columns.offsets.back());
    std::vector<double> norm(documents.size(), 0.0);
    detail::runOnThreads(threads, [&](unsigned t) {
        ShareCounts& share = shares[t];
        // Map the share's term ids to sorted ones once.
        for (std::uint32_t id = 0; id < share.terms.size(); ++id) share.globalId[id] = sortedId[share.globalId[id]];
        const std::vector<std::uint64_t> begin = share.fill;
        // The counts wait in `weights` until the norms are known.
        for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) {
            const std::size_t row = d - share.firstDocument;
            for (std::uint64_t i = share.rowOffsets[row]; i < share.rowOffsets[row + 1]; ++i) {
                const std::uint64_t at = share.fill[share.globalId[share.rowTerms[i]]]++;
                columns.documents[at] = static_cast<std::uint32_t>(d);
                columns.weights[at] = static_cast<float>(share.rowCounts[i]);
            }
        }
        // Norms, each document's terms visited in ascending term order as weigh() visits them,
        // then the weights; the share's documents are its own stretch of every column.
        if (settings_.norm != Norm::None) {
            for (std::uint32_t term = 0; term < termCount; ++term)
                for (std::uint64_t p = begin[term]; p < share.fill[term]; ++p) {
                    const double v = rawWeight(term, columns.weights[p]);
                    norm[columns.documents[p]] += settings_.norm == Norm::L2 ? v * v : std::abs(v);
                }
        }
        for (std::size_t d = share.firstDocument; d < share.endDocument; ++d) {
            if (settings_.norm == Norm::L2) norm[d] = std::sqrt(norm[d]);
            if (norm[d] == 0.0) norm[d] = 1.0;  // scikit-learn leaves all-zero rows as they are
        }
        for (std::uint32_t term = 0; term < termCount; ++term)
            for (std::uint64_t p = begin[term]; p < share.fill[term]; ++p)
                columns.weights[p] = static_cast<float>(rawWeight(term, columns.weights[p]) / norm[columns.documents[p]]);
    });
    return columns;
}

}  // namespace linkscope::retrieval
