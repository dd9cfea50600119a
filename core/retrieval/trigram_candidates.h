#pragma once
// The approximate first stage of sparse search over knowledge bases of UMLS size.
//
// BioSyn's character 1-2 grams are in nearly every name (a query's unigrams alone touch most of
// 8 M names), so exact search scores every name for every query: fine for MEDIC's 70 k names,
// hours for UMLS's 8 M. This stage narrows the names to a few hundred per query the way
// scispaCy's linker does, by TF-IDF over character 3-grams (each word padded with a space, so a
// two-letter abbreviation still has 3-grams): 3-grams are selective, most occur in a few thousand
// names. The query's 3-grams are read rarest first, and reading stops at a budget of postings;
// 3-grams common enough to touch a large share of the names are skipped (they say little about
// which names rank first and cost the most). The names with the highest partial scores are
// the candidates; SparseIndex then scores them exactly with the index's own model, so a returned
// score is the exact score and only a name the stage missed can be missing from a result.
//
// What this costs in recall is measured against exact search on a sample (benchmarks/sparse_scale),
// not assumed.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/sparse_columns_view.h"
#include "retrieval/tfidf.h"

namespace linkscope::retrieval {

struct TrigramCandidateOptions {
    /// Names handed to the exact score per query.
    std::size_t candidates = 512;
    /// Postings read per query at most (the rarest 3-grams first); the rarest 3-gram is read
    /// whatever its length, so a query with any known 3-gram gets candidates.
    /// 65,536 postings keep the stage's time per query small against UMLS's names on one core
    /// (reading postings is its cost; benchmarks/sparse_scale times the search); the rarest
    /// 3-grams are the ones that pick the best names.
    std::uint64_t postingBudget = std::uint64_t{1} << 16;
    /// 3-grams in more than this fraction of the names are not read (after the rarest one).
    double maxNameFraction = 0.05;
    /// The rarest this many 3-grams are read whatever the budget: a query made of common words
    /// has no rare 3-gram, and one common 3-gram ties thousands of names (at UMLS size the budget
    /// alone lost recall@64 against exact search: benchmarks/sparse_scale).
    std::size_t minimumTrigrams = 4;

    bool operator==(const TrigramCandidateOptions&) const = default;
};

/// Character 3-gram TF-IDF postings of a list of names, searched with a budget.
class TrigramCandidates {
public:
    TrigramCandidates();
    /// Indexes `names` (at most 2^32 - 1) on `threads` threads (0: one per hardware thread).
    static TrigramCandidates build(std::span<const std::string_view> names, const TrigramCandidateOptions& options,
                                   unsigned threads = 0);
    /// A stage from its saved parts (sparse_index_io.h) over `names` names: the 3-gram model, its
    /// postings, and every name's nameHash() sorted with its entry. `storage` owns the arrays the
    /// spans show (a mapped file) and is kept as long as the stage or a copy of it lives. Checks
    /// the parts against each other and `names`; throws Error naming the first inconsistency.
    static TrigramCandidates fromParts(TfidfVectorizer vectorizer, SparseColumnsView postings,
                                       std::span<const std::uint64_t> nameHashes,
                                       std::span<const std::uint32_t> hashedEntries, std::uint64_t names,
                                       std::shared_ptr<const void> storage, const TrigramCandidateOptions& options);

    /// Scratch memory of one searching thread: a partial score per name.
    class Scratch {
    public:
        explicit Scratch(const TrigramCandidates& index);

    private:
        friend class TrigramCandidates;
        TermAnalyzer analyzer_;
        std::string text_;  // the query, padded
        SparseVector query_;
        std::vector<float> scores_;
        std::vector<std::uint32_t> touched_;
        std::vector<std::uint32_t> order_;
    };

    /// Fills `out` (cleared first) with the entries with the best partial scores for `query`, at
    /// most options().candidates, and every entry whose name is `query` itself (byte for byte),
    /// whatever its partial score; in entry order, each once.
    void candidates(std::string_view query, Scratch& scratch, std::vector<std::uint32_t>& out) const;

    const TrigramCandidateOptions& options() const noexcept { return options_; }
    std::uint32_t size() const noexcept { return size_; }
    /// Bytes of the model and the arrays (mapped ones included).
    std::size_t memoryBytes() const noexcept;

    /// The parts that are saved (sparse_index_io.h).
    const TfidfVectorizer& vectorizer() const noexcept { return vectorizer_; }
    const SparseColumnsView& postings() const noexcept { return postings_; }
    std::span<const std::uint64_t> nameHashes() const noexcept { return nameHashes_; }
    std::span<const std::uint32_t> hashedEntries() const noexcept { return hashedEntries_; }
    /// The settings of the 3-gram model: char 3-grams of padded() text, the default weighting.
    static TfidfSettings modelSettings();
    /// The hash a name is looked up by: FNV-1a (64 bits) of its bytes, a fixed function because
    /// the hashes are saved.
    static std::uint64_t nameHash(std::string_view name) noexcept;

    /// The text the 3-grams are taken from: every word padded with a space on both sides.
    static void padded(std::string_view text, std::string& out);

private:
    TrigramCandidateOptions options_;
    TfidfVectorizer vectorizer_;
    // Owns the arrays the views below show: the built ones, or a mapped index file. Shared, so
    // that a copy of the stage shows the same arrays; never written after the stage is made.
    std::shared_ptr<const void> storage_;
    SparseColumnsView postings_;
    std::uint32_t size_ = 0;
    // Every name's hash, sorted, with its entry: a query spelled exactly as a name always has it
    // among its candidates (a mention is often a name; its 3-grams may all be common ones).
    std::span<const std::uint64_t> nameHashes_;
    std::span<const std::uint32_t> hashedEntries_;
};

}  // namespace linkscope::retrieval
