#pragma once
// Interactive entity search over a knowledge base: what a search box needs to find any entity
// while the user types ("neo" -> Neoplasms, "breast canc" -> Breast Neoplasms, "D0093" -> the
// MeSH ids starting so), fast enough to run on a GUI thread at every key stroke.
//
// Matching is on names normalized by the text layer (lower-cased, accents removed, punctuation
// turned into word separators: "Sjögren's" and "sjogren s" are the same key) and on
// identifiers (ASCII case-insensitive, canonical "MESH:D009369" or short "D009369"; a bare
// "613097" finds OMIM:613097). Every entity appears at most once, under its best match. Classes,
// best first:
//   ExactId     the query is one of the entity's ids
//   ExactName   a name's key equals the query's key
//   NamePrefix  a name's key starts with the query's key
//   IdPrefix    an id starts with the query (only for queries that contain a digit, so that
//               typing "c" does not list every "C..." supplementary concept)
//   WordPrefix  every word of the query is a prefix of some word of the name ("canc breast")
//   Substring   the query's key occurs anywhere in a name's key ("plasm")
// Within a class: shorter key first, then the preferred name before synonyms, then key order.
//
// Layout (built once, immutable, safe to search from several threads at once):
//   - one entry per (entity, name) pair of the KB, plus one per homonym-expanded name when an
//     expansion is given, sorted by normalized key; the keys lie back to back in one arena in
//     that order ('\0'-separated), so an entry's position is also its key order;
//   - every word of every key, sorted by word text;
//   - every id (canonical and short form, upper-cased), sorted.
// Costs per query, with E entries, W words, I ids, L arena bytes, N the limit:
//   exact / prefix / id classes: O(log E + m log m) over the m matches of the class (binary search
//     for the range, then a heap yields the best N distinct entities);
//   word prefix: O(k log W) to find each query word's range, then the candidates of the rarest
//     word are checked against the other words: O(c * key length);
//   substring: run only while fewer than N entities were found by the better classes. Up to
//     kSubstringScanBytes of keys (MEDIC's are 2.4 MiB) an O(L) scan of the arena; above it (UMLS,
//     where a scan outlasts the search box's budget: benchmarks/kb_search --umls) the keys holding
//     the query's two rarest 3-grams
//     (kb/trigram_postings.h), checked with find, and then a query of fewer than three
//     characters has no substring class (its 3-grams cannot say where it occurs).
// Memory: about 60 bytes per entry (entry, offset, ~3 words) plus its key, and ~20 bytes per id
// form plus its text (benchmarks/kb_search prints the index's size for MEDIC).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/knowledge_base.h"
#include "kb/trigram_postings.h"
#include "text/normalizer.h"
#include "util/progress.h"

namespace linkscope::kb {

class HomonymExpansion;

enum class SearchMatch : std::uint8_t { ExactId, ExactName, NamePrefix, IdPrefix, WordPrefix, Substring };

/// "exact id", "exact name", "name prefix", "id prefix", "word prefix", "substring".
std::string_view toString(SearchMatch match) noexcept;

struct EntitySearchHit {
    EntityIndex entity = 0;
    SearchMatch match = SearchMatch::Substring;
    /// What matched, as the KB spells it: a name, a homonym-expanded name, or a canonical id.
    /// Points into the KB (or the expansion), which must outlive the hit.
    std::string_view text;
    bool preferredName = false;  ///< text is the entity's preferred name
    bool expandedName = false;   ///< text is a homonym-expanded name ("HD (Huntington Disease)")
    bool id = false;             ///< text is an identifier (ExactId, IdPrefix)
};

/// Key bytes up to which the substring class scans the keys (above: 3-gram postings).
inline constexpr std::size_t kSubstringScanBytes = std::size_t{16} << 20;

class EntitySearchIndex {
public:
    /// Builds the index over every name of `kb` and, when `homonyms` is given (it must be the
    /// expansion of this KB), over every homonym-expanded name that differs from its original.
    /// Both must outlive the index and stay where they are. Reports progress and throws
    /// Cancelled when `progress` asks to stop; throws Error when a name is not valid UTF-8.
    /// `substringScanBytes`: see kSubstringScanBytes (tests lower it to reach the postings).
    explicit EntitySearchIndex(const KnowledgeBase& kb, const HomonymExpansion* homonyms = nullptr,
                               const ProgressSink& progress = {}, std::size_t substringScanBytes = kSubstringScanBytes);

    /// The best `limit` entities for `query`, best first (see the header comment). An empty
    /// query, or one that is only punctuation and white space, finds nothing. Throws Error when
    /// the query is not valid UTF-8.
    std::vector<EntitySearchHit> search(std::string_view query, std::size_t limit = 50) const;

    /// The key a name or query is compared by ("Sjögren's Syndrome" -> "sjogren s syndrome").
    std::string normalizedKey(std::string_view text) const { return normalizer_.normalize(text); }

    const KnowledgeBase& knowledgeBase() const noexcept { return *kb_; }
    const HomonymExpansion* homonyms() const noexcept { return homonyms_; }
    std::size_t entryCount() const noexcept { return entries_.size(); }  ///< names + expanded names
    std::size_t wordCount() const noexcept { return words_.size(); }
    std::size_t idCount() const noexcept { return ids_.size(); }
    /// Whether substring queries read 3-gram postings rather than scanning every key.
    bool substringPostings() const noexcept { return postings_.has_value(); }
    std::size_t memoryBytes() const noexcept;

private:
    struct Entry {
        EntityIndex entity;
        std::uint32_t pair;  ///< the KB's (entity, name) pair this name belongs to
        std::uint8_t flags;  ///< kPreferred | kExpanded
    };
    struct WordRef {
        std::uint32_t offset;  ///< first byte of the word in keyArena_
        std::uint32_t length;
        std::uint32_t entry;
    };
    struct IdRef {
        std::uint32_t offset;  ///< upper-cased form in idArena_
        std::uint32_t length;
        EntityIndex entity;
        StringId id;  ///< the canonical id in the KB's pool
        bool primary;
    };
    class Collector;

    static constexpr std::uint8_t kPreferred = 0x1;
    static constexpr std::uint8_t kExpanded = 0x2;

    std::string_view key(std::uint32_t entry) const noexcept {
        return {keyArena_.data() + keyOffsets_[entry], keyOffsets_[entry + 1] - keyOffsets_[entry] - 1};
    }
    std::string_view word(const WordRef& w) const noexcept { return {keyArena_.data() + w.offset, w.length}; }
    std::string_view idKey(const IdRef& r) const noexcept { return {idArena_.data() + r.offset, r.length}; }
    std::string_view entryText(const Entry& entry) const noexcept;
    std::uint64_t rank(std::uint32_t entry) const noexcept;

    void buildIds();
    void searchNames(std::string_view key, Collector& hits) const;
    void searchWordPrefixes(std::string_view key, Collector& hits) const;
    void searchSubstrings(std::string_view key, Collector& hits) const;

    const KnowledgeBase* kb_;
    const HomonymExpansion* homonyms_;
    text::Normalizer normalizer_;
    std::vector<Entry> entries_;             // sorted by key
    std::string keyArena_;                   // key of entry i, then '\0', for every i in order
    std::vector<std::uint32_t> keyOffsets_;  // entries_.size() + 1 offsets into keyArena_
    std::vector<WordRef> words_;             // sorted by word text
    std::string idArena_;
    std::vector<IdRef> ids_;                   // sorted by upper-cased id, primary holders first
    std::optional<TrigramPostings> postings_;  // over the keys, above kSubstringScanBytes
};

}  // namespace linkscope::kb
