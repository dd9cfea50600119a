#include "retrieval/sparse_index.h"

#include <algorithm>
#include <atomic>
#include <unordered_map>

#include "retrieval/sparse_columns_view.h"
#include "util/error.h"
#include "util/parallel.h"

namespace linkscope::retrieval {
namespace {

std::vector<std::string_view> namesOf(const NameDictionary& dictionary) {
    std::vector<std::string_view> names;
    names.reserve(dictionary.size());
    for (const auto& entry : dictionary) names.emplace_back(entry.name);
    return names;
}

}  // namespace

SparseIndex::SparseIndex() : vectorizer_(TfidfVectorizer::restore(TfidfSettings{}, {}, {}, 0)) {}

SparseIndex SparseIndex::build(const NameDictionary& dictionary, const TfidfSettings& settings,
                               const SparseIndexOptions& options) {
    const auto names = namesOf(dictionary);
    return make(names, settings, options, fingerprintOf(dictionary));
}

SparseIndex SparseIndex::build(std::span<const std::string_view> names, const TfidfSettings& settings,
                               const SparseIndexOptions& options) {
    return make(names, settings, options, fingerprintOf(names));
}

SparseIndex SparseIndex::make(std::span<const std::string_view> names, const TfidfSettings& settings,
                              const SparseIndexOptions& options, const DictionaryFingerprint& fingerprint) {
    if (names.size() >= 0xFFFFFFFFull) throw Error("too many names to index: " + std::to_string(names.size()));
    SparseIndex index;
    index.vectorizer_ = TfidfVectorizer(settings);
    index.fingerprint_ = fingerprint;
    index.size_ = static_cast<std::uint32_t>(names.size());
    if (options.approximateAbove != 0 && names.size() > options.approximateAbove) {
        // Rows instead of postings: the candidate stage finds the names, their rows score them.
        index.approximate_ = true;
        auto rows =
            std::make_shared<const CompactSparseRows>(index.vectorizer_.fitTransformCompact(names, options.threads));
        index.rows_ = viewOf(*rows);
        index.rowStorage_ = std::move(rows);
        index.postings_.offsets.assign(index.vectorizer_.vocabularySize() + 1, 0);
        index.trigrams_ = TrigramCandidates::build(names, options.approximate, options.threads);
    } else {
        index.postings_ = index.vectorizer_.fitTransformColumns(names, options.threads);
    }
    index.buildDenseColumns(options);
    return index;
}

void SparseIndex::buildDenseColumns(const SparseIndexOptions& options) {
    const std::size_t termCount = vectorizer_.vocabularySize();
    denseSlot_.assign(termCount, kNotDense);
    dense_.clear();
    denseTermCount_ = 0;
    if (size_ == 0) return;
    if (approximate_) return;  // no postings to copy; its searches score candidates by row
    const auto frequency = [&](std::size_t t) { return postings_.offsets[t + 1] - postings_.offsets[t]; };
    std::vector<std::uint32_t> chosen;
    for (std::uint32_t t = 0; t < termCount; ++t)
        if (static_cast<double>(frequency(t)) >= options.denseFraction * size_) chosen.push_back(t);
    std::stable_sort(chosen.begin(), chosen.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return frequency(a) > frequency(b); });
    chosen.resize(std::min(chosen.size(), options.denseBudgetBytes / (std::size_t{size_} * sizeof(float))));
    denseTermCount_ = chosen.size();
    dense_.assign(denseTermCount_ * size_, 0.0f);
    for (std::size_t slot = 0; slot < chosen.size(); ++slot) {
        const std::uint32_t t = chosen[slot];
        denseSlot_[t] = static_cast<std::uint32_t>(slot);
        float* column = dense_.data() + slot * size_;
        for (std::uint64_t p = postings_.offsets[t]; p < postings_.offsets[t + 1]; ++p)
            column[postings_.documents[p]] = postings_.weights[p];
    }
}

SparseIndex SparseIndex::fromParts(TfidfVectorizer vectorizer, Postings postings, DictionaryFingerprint fingerprint,
                                   const SparseIndexOptions& options) {
    const std::size_t termCount = vectorizer.vocabularySize();
    if (fingerprint.names >= 0xFFFFFFFFull) throw Error("too many names: " + std::to_string(fingerprint.names));
    if (vectorizer.documentCount() != fingerprint.names)
        throw Error("the model was fitted on " + std::to_string(vectorizer.documentCount()) +
                    " names but the index holds " + std::to_string(fingerprint.names));
    checkColumns(SparseColumnsView::of(postings), termCount, fingerprint.names, "posting");
    SparseIndex index;
    index.vectorizer_ = std::move(vectorizer);
    index.postings_ = std::move(postings);
    index.fingerprint_ = fingerprint;
    index.size_ = static_cast<std::uint32_t>(fingerprint.names);
    index.buildDenseColumns(options);
    return index;
}

SparseIndex SparseIndex::fromApproximateParts(TfidfVectorizer vectorizer, CompactSparseRowsView rows,
                                              TrigramCandidates trigrams, DictionaryFingerprint fingerprint,
                                              std::shared_ptr<const void> storage) {
    if (fingerprint.names >= 0xFFFFFFFFull) throw Error("too many names: " + std::to_string(fingerprint.names));
    if (vectorizer.documentCount() != fingerprint.names)
        throw Error("the model was fitted on " + std::to_string(vectorizer.documentCount()) +
                    " names but the index holds " + std::to_string(fingerprint.names));
    if (trigrams.size() != fingerprint.names)
        throw Error("the 3-gram stage holds " + std::to_string(trigrams.size()) + " names but the index holds " +
                    std::to_string(fingerprint.names));
    checkRows(rows, static_cast<std::size_t>(fingerprint.names), vectorizer.vocabularySize());
    SparseIndex index;
    index.vectorizer_ = std::move(vectorizer);
    index.fingerprint_ = fingerprint;
    index.size_ = static_cast<std::uint32_t>(fingerprint.names);
    index.approximate_ = true;
    index.rowStorage_ = std::move(storage);
    index.rows_ = rows;
    index.postings_.offsets.assign(index.vectorizer_.vocabularySize() + 1, 0);
    index.trigrams_ = std::move(trigrams);
    index.buildDenseColumns(SparseIndexOptions{});
    return index;
}

std::vector<Candidate> SparseIndex::search(std::string_view query, std::size_t k) const {
    SparseSearcher searcher(*this);
    return searcher.search(query, k);
}

std::vector<std::vector<Candidate>> SparseIndex::search(std::span<const std::string_view> queries, std::size_t k,
                                                        unsigned threads) const {
    // A corpus names the same things again and again (MedMentions' test split: 70,870 mentions
    // of far fewer strings), so each distinct query is searched once and its result copied.
    std::unordered_map<std::string_view, std::uint32_t> slotOf;
    slotOf.reserve(queries.size());
    std::vector<std::string_view> distinct;
    std::vector<std::uint32_t> slots(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const auto [it, added] = slotOf.try_emplace(queries[i], static_cast<std::uint32_t>(distinct.size()));
        if (added) distinct.push_back(queries[i]);
        slots[i] = it->second;
    }
    if (distinct.size() == queries.size()) return searchDistinct(queries, k, threads);
    const auto found = searchDistinct(distinct, k, threads);
    std::vector<std::vector<Candidate>> results(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) results[i] = found[slots[i]];
    return results;
}

std::vector<std::vector<Candidate>> SparseIndex::searchDistinct(std::span<const std::string_view> queries,
                                                                std::size_t k, unsigned threads) const {
    std::vector<std::vector<Candidate>> results(queries.size());
    threads = static_cast<unsigned>(
        std::min<std::size_t>(util::threadCount(threads), std::max<std::size_t>(queries.size(), 1)));
    // Queries are handed out in groups from a shared counter; a group is searched together
    // (SparseSearcher's group search shares the reading of the dense columns; 64 queries per
    // group was fastest on NCBI Disease: benchmarks/sparse_ncbi), and each result lands in its
    // own slot, whatever thread computed it. Groups stay small enough to give every thread several.
    const std::size_t group = std::clamp<std::size_t>(queries.size() / (std::size_t{threads} * 4), 1, 64);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    util::runOnThreads(threads, [&](unsigned) {
        try {
            SparseSearcher searcher(*this);
            if (approximate_) {  // one query at a time: each has its own candidates
                for (std::size_t first = next.fetch_add(group); first < queries.size() && !failed;
                     first = next.fetch_add(group))
                    for (std::size_t i = first; i < std::min(first + group, queries.size()); ++i)
                        searcher.search(queries[i], k, results[i]);
                return;
            }
            TermAnalyzer analyzer(settings());
            std::vector<SparseVector> vectors(group);
            for (std::size_t first = next.fetch_add(group); first < queries.size() && !failed;
                 first = next.fetch_add(group)) {
                const std::size_t count = std::min(group, queries.size() - first);
                for (std::size_t i = 0; i < count; ++i) vectorizer_.transform(queries[first + i], analyzer, vectors[i]);
                searcher.search(std::span<const SparseVector>(vectors.data(), count), k,
                                std::span<std::vector<Candidate>>(results.data() + first, count));
            }
        } catch (...) {
            failed = true;  // the other threads stop at their next group
            throw;
        }
    });
    return results;
}

std::vector<std::vector<Candidate>> SparseIndex::search(std::span<const std::string> queries, std::size_t k,
                                                        unsigned threads) const {
    const std::vector<std::string_view> views(queries.begin(), queries.end());
    return search(std::span<const std::string_view>(views), k, threads);
}

std::size_t SparseIndex::memoryBytes() const noexcept {
    return vectorizer_.memoryBytes() + postings_.offsets.capacity() * sizeof(std::uint64_t) +
           postings_.documents.capacity() * sizeof(std::uint32_t) + postings_.weights.capacity() * sizeof(float) +
           denseSlot_.capacity() * sizeof(std::uint32_t) + dense_.capacity() * sizeof(float) +
           std::visit([](const auto& rows) { return rows.bytes(); }, rows_) + trigrams_.memoryBytes();
}

}  // namespace linkscope::retrieval
