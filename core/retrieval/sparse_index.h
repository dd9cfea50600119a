#pragma once
// Exact top-k search of a NameDictionary by TF-IDF score (the inner product of the query's and
// the name's weighted rows: cosine similarity with the default l2 norm), the sparse half of
// BioSyn and the candidate generator of Le & Nguyen.
//
// The index is inverted: for each term, the (entry, weight) pairs of the names that contain it,
// in compact CSR arrays sorted by entry. A query adds its terms' postings into a per-thread
// score accumulator, so no queries x names matrix ever exists; the k best scores are then
// selected with a bounded heap. Results are exact: every entry sharing a term with the query is
// scored, and the result equals a brute-force ranking of all entries.
//
// Two ways of scoring, chosen per query (compared on NCBI Disease by benchmarks/sparse_ncbi):
//  - few postings (rare terms, word analyzers): scores accumulate over the postings, the touched
//    entries are remembered and only they are ranked;
//  - postings covering much of the dictionary (character unigrams are in most names): every
//    name is scored, in tiles of 1,024 names whose scores stay in the L1 cache, each query
//    adding its terms in ascending order. The most frequent terms (SparseIndexOptions) are also
//    stored as dense columns, which a tile adds with SIMD, several columns per pass, instead of
//    scattering postings; queries searched together (the batch search hands out groups of 64)
//    take turns on each tile, so a tile's slices of the dense columns are read from memory once
//    per group and then from the cache.
//
// Candidates are dictionary entries, i.e. names; an entry's ids say which concepts it names,
// several for a name shared by several concepts (groupByConcept() in candidate_merge.h reads a
// ranked list as concepts and flags those).
//
// Ranking contract:
//  - score = sum over the query's terms, in ascending term id, of float(query weight) *
//    float(name weight), accumulated in float (the order is fixed, so equal rows give equal
//    scores and a brute-force dot product in the same order gives the same bits);
//  - candidates are sorted by score, descending; equal scores by entry index, ascending (the
//    name that comes first in the dictionary wins a tie);
//  - only entries that share at least one term with the query (score > 0) are returned, so a
//    result may hold fewer than k candidates, none for a query without a known term.
//
// Exact up to a size: a dictionary of more than SparseIndexOptions::approximateAbove names (UMLS:
// 8 M) is searched approximately (approximate() is true). A character 3-gram stage
// (trigram_candidates.h) picks a few hundred names per query and only they are scored, with the
// same model, weights and summation order as above; so every returned score is the exact score
// and the order follows the contract, but a name the stage did not pick is missing even if it
// would rank among the k best. Such an index keeps the names' rows instead of postings;
// benchmarks/sparse_scale measures its recall against exact search. Saved (sparse_index_io.h) and
// loaded again, its rows and the stage's postings are read from the mapped file in place.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/dictionary_fingerprint.h"
#include "retrieval/name_dictionary.h"
#include "retrieval/sparse_rows_view.h"
#include "retrieval/tfidf.h"
#include "retrieval/trigram_candidates.h"

namespace linkscope::retrieval {

/// Speed / memory trade-offs of an index (not saved: chosen again when an index is loaded).
struct SparseIndexOptions {
    /// A term in at least this fraction of the names is also stored as a dense column of one
    /// float per name: character unigrams and the commonest bigrams.
    double denseFraction = 0.125;
    /// At most this many bytes of dense columns; the most frequent terms get them first.
    std::size_t denseBudgetBytes = std::size_t{256} << 20;
    /// Threads that build the index (0: one per hardware thread); the index does not depend on it.
    unsigned threads = 0;
    /// Dictionaries of more names are searched approximately (see above); 0: always exactly.
    /// Exact search costs time in proportion to the names; for MedMentions' 72 k test mentions on
    /// two cores, above half a million names one evaluation would take longer than the 5 minutes
    /// a UMLS-size evaluation may take (benchmarks/sparse_scale times exact and approximate search).
    std::size_t approximateAbove = 500'000;
    /// The candidate stage of an approximate index.
    TrigramCandidateOptions approximate;
};

class SparseIndex {
public:
    /// The inverted lists: term t's postings are documents/weights[offsets[t], offsets[t + 1])
    /// (documents being dictionary entries), sorted by entry, each entry once.
    using Postings = SparseColumns;

    /// An empty index (no names); every search returns nothing.
    SparseIndex();

    /// Fits TF-IDF on the dictionary's names (each entry is a document, duplicates included, as
    /// in BioSyn) and indexes them. Throws Error for invalid settings, a name that is not valid
    /// UTF-8, or more than 2^32 - 1 names.
    static SparseIndex build(const NameDictionary& dictionary, const TfidfSettings& settings,
                             const SparseIndexOptions& options = {});
    /// Same from bare names (fingerprinted as entries without ids).
    static SparseIndex build(std::span<const std::string_view> names, const TfidfSettings& settings,
                             const SparseIndexOptions& options = {});
    /// An index from its saved parts (sparse_index_io.h). Checks the postings against the
    /// model and the name count and throws Error naming the first inconsistency.
    static SparseIndex fromParts(TfidfVectorizer vectorizer, Postings postings, DictionaryFingerprint fingerprint,
                                 const SparseIndexOptions& options = {});
    /// An approximate index from its saved parts: the names' rows and the candidate stage.
    /// `storage` owns the arrays the rows show (a mapped file) and is kept as long as the index
    /// or a copy of it lives. Checks the rows against the model and the name count and throws
    /// Error naming the first inconsistency.
    static SparseIndex fromApproximateParts(TfidfVectorizer vectorizer, CompactSparseRowsView rows,
                                            TrigramCandidates trigrams, DictionaryFingerprint fingerprint,
                                            std::shared_ptr<const void> storage);

    /// The k best entries for one query (see the ranking contract above). For many queries,
    /// use the batch search or a SparseSearcher: this one allocates scratch memory per call.
    std::vector<Candidate> search(std::string_view query, std::size_t k) const;

    /// The k best entries for every query, searched on `threads` threads (0: one per hardware
    /// thread). The result is the same for any number of threads. A query that is not valid
    /// UTF-8 makes the whole call throw Error.
    std::vector<std::vector<Candidate>> search(std::span<const std::string_view> queries, std::size_t k,
                                               unsigned threads = 0) const;
    std::vector<std::vector<Candidate>> search(std::span<const std::string> queries, std::size_t k,
                                               unsigned threads = 0) const;

    const TfidfVectorizer& vectorizer() const noexcept { return vectorizer_; }
    const TfidfSettings& settings() const noexcept { return vectorizer_.settings(); }
    /// Number of indexed names (dictionary entries).
    std::uint32_t size() const noexcept { return size_; }
    const Postings& postings() const noexcept { return postings_; }
    const DictionaryFingerprint& fingerprint() const noexcept { return fingerprint_; }
    /// True when searches are approximate: more than SparseIndexOptions::approximateAbove names.
    bool approximate() const noexcept { return approximate_; }
    /// Approximate index: every name's weighted row (empty views for an exact index).
    const CompactSparseRowsView& rows() const noexcept { return rows_; }
    /// Approximate index: its candidate stage (empty for an exact index).
    const TrigramCandidates& trigrams() const noexcept { return trigrams_; }
    /// Number of terms also stored as dense columns.
    std::size_t denseTerms() const noexcept { return denseTermCount_; }
    /// Bytes held by the index (model, postings or rows and candidate stage, dense columns),
    /// mapped file pages included, for reports.
    std::size_t memoryBytes() const noexcept;

private:
    friend class SparseSearcher;
    static constexpr std::uint32_t kNotDense = 0xFFFFFFFFu;
    static SparseIndex make(std::span<const std::string_view> names, const TfidfSettings& settings,
                            const SparseIndexOptions& options, const DictionaryFingerprint& fingerprint);
    void buildDenseColumns(const SparseIndexOptions& options);
    /// The batch search of queries that are all different strings.
    std::vector<std::vector<Candidate>> searchDistinct(std::span<const std::string_view> queries, std::size_t k,
                                                       unsigned threads) const;
    /// The exact score of entry `entry` for `query` (the ranking contract's sum); approximate
    /// indexes only, which keep the names' rows.
    float rowScore(const SparseVector& query, std::uint32_t entry) const noexcept;

    TfidfVectorizer vectorizer_;
    Postings postings_;
    DictionaryFingerprint fingerprint_;
    std::uint32_t size_ = 0;
    std::size_t denseTermCount_ = 0;
    std::vector<std::uint32_t> denseSlot_;  // per term: its dense column, or kNotDense
    std::vector<float> dense_;              // the dense columns, size_ floats each
    bool approximate_ = false;
    // Approximate index: every name's weighted row (postings_ stay empty), term ids in 16 bits
    // when the vocabulary allows; rowStorage_ owns what the view shows (the fitted rows or a
    // mapped file), shared so that a copy of the index shows the same rows.
    std::shared_ptr<const void> rowStorage_;
    CompactSparseRowsView rows_;
    TrigramCandidates trigrams_;  // approximate index: its candidate stage
};

/// Searches one index again and again with the same scratch memory (a score per name, the
/// analyzer's buffers): one per thread. The index must outlive the searcher.
class SparseSearcher {
public:
    explicit SparseSearcher(const SparseIndex& index);

    std::vector<Candidate> search(std::string_view query, std::size_t k);
    /// Same into `out` (cleared first), reusing its memory.
    void search(std::string_view query, std::size_t k, std::vector<Candidate>& out);
    /// A query already vectorized by the index's model (sorted terms, as TfidfVectorizer gives;
    /// Error for term ids out of order or outside the vocabulary). Exact indexes only: an
    /// approximate one needs the query's text for its candidate stage (Error).
    void search(const SparseVector& query, std::size_t k, std::vector<Candidate>& out);
    /// Several vectorized queries at once, out[i] for queries[i] (same size). Queries that score
    /// every name share the reading of the dense columns, which makes a group cheaper than the
    /// same queries one by one; each result is the same as a search of its query alone.
    void search(std::span<const SparseVector> queries, std::size_t k, std::span<std::vector<Candidate>> out);

private:
    bool scoresEveryName(const SparseVector& query) const noexcept;
    void searchTouched(const SparseVector& query, std::size_t k, std::vector<Candidate>& out);
    void searchTiled(std::span<const SparseVector* const> queries, std::size_t k,
                     std::span<std::vector<Candidate>* const> out);
    void searchApproximate(std::string_view text, std::size_t k, std::vector<Candidate>& out);

    const SparseIndex* index_;
    TermAnalyzer analyzer_;
    SparseVector query_;
    std::vector<float> scores_;           // one per name, all zero between searches
    std::vector<std::uint32_t> touched_;  // touched search: names scored by the current query
    std::vector<std::uint64_t> cursors_;  // tiled search: next posting of each query term
    std::vector<const SparseVector*> tiledQueries_;
    std::vector<std::vector<Candidate>*> tiledOut_;
    std::optional<TrigramCandidates::Scratch> trigramScratch_;  // approximate index only
    std::vector<std::uint32_t> picked_;                         // its candidates for the current query
};

}  // namespace linkscope::retrieval
