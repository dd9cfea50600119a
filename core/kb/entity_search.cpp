#include "kb/entity_search.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "kb/homonyms.h"
#include "util/error.h"

namespace linkscope::kb {
namespace {

// Names are compared by what a reader would call the same: case, accents and punctuation do
// not matter ("Sjögren's" = "sjogren s"). Unicode punctuation counts too (en dashes, curly quotes).
text::NormalizerOptions searchNormalization() {
    text::NormalizerOptions options;
    options.stripAccents = true;
    return options;
}

std::string upperAscii(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return out;
}

std::string_view trimAscii(std::string_view text) noexcept {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    return text;
}

// The words of a key, which the normalizer leaves separated by single spaces.
template <class F>
void forEachWord(std::string_view key, F&& f) {
    std::size_t begin = 0;
    while (begin < key.size()) {
        std::size_t end = key.find(' ', begin);
        if (end == std::string_view::npos) end = key.size();
        if (end > begin) f(begin, end - begin);
        begin = end + 1;
    }
}

bool hasWordWithPrefix(std::string_view key, std::string_view prefix) noexcept {
    for (std::size_t at = key.find(prefix); at != std::string_view::npos; at = key.find(prefix, at + 1))
        if (at == 0 || key[at - 1] == ' ') return true;
    return false;
}

std::uint32_t checkedOffset(std::size_t value, const char* what) {
    if (value > std::numeric_limits<std::uint32_t>::max())
        throw Error(std::string("entity search index: too many ") + what + " for 32-bit offsets");
    return static_cast<std::uint32_t>(value);
}

// A rank packs the ordering inside one class into one integer, so that the best entries come
// out of a heap without string comparisons: key length (clamped), then synonym after preferred
// name, then the entry's position (= key order, and unique).
constexpr unsigned kLengthShift = 48;
constexpr std::uint64_t kNotPreferredBit = std::uint64_t{1} << 47;
constexpr std::uint64_t kPositionMask = kNotPreferredBit - 1;

}  // namespace

std::string_view toString(SearchMatch match) noexcept {
    switch (match) {
        case SearchMatch::ExactId:
            return "exact id";
        case SearchMatch::ExactName:
            return "exact name";
        case SearchMatch::NamePrefix:
            return "name prefix";
        case SearchMatch::IdPrefix:
            return "id prefix";
        case SearchMatch::WordPrefix:
            return "word prefix";
        case SearchMatch::Substring:
            return "substring";
    }
    return "?";
}

// Gathers hits class by class, each entity once, until the limit is reached.
class EntitySearchIndex::Collector {
public:
    explicit Collector(std::size_t limit) : limit_(limit) { seen_.reserve(limit * 2); }

    bool full() const noexcept { return hits_.size() >= limit_; }

    void add(const EntitySearchHit& hit) {
        if (full() || !seen_.insert(hit.entity).second) return;
        hits_.push_back(hit);
    }

    /// Adds the entries behind `ranks` (see rank()) best first until the limit is reached. A
    /// heap rather than a sort: a one-letter prefix matches thousands of names, of which only
    /// the first few dozen distinct entities are wanted.
    template <class MakeHit>
    void addRanked(std::vector<std::uint64_t>& ranks, MakeHit&& makeHit) {
        std::make_heap(ranks.begin(), ranks.end(), std::greater<>());
        auto end = ranks.end();
        while (end != ranks.begin() && !full()) {
            std::pop_heap(ranks.begin(), end, std::greater<>());
            --end;
            add(makeHit(*end));
        }
    }

    std::vector<EntitySearchHit> take() { return std::move(hits_); }

private:
    std::size_t limit_;
    std::vector<EntitySearchHit> hits_;
    std::unordered_set<EntityIndex> seen_;
};

EntitySearchIndex::EntitySearchIndex(const KnowledgeBase& kb, const HomonymExpansion* homonyms,
                                     const ProgressSink& progress, std::size_t substringScanBytes)
    : kb_(&kb), homonyms_(homonyms), normalizer_(searchNormalization()) {
    if (homonyms_ && &homonyms_->knowledgeBase() != kb_)
        throw Error("entity search index: the homonym expansion belongs to another knowledge base");
    progress("Indexing names for search", 0.0);

    // 1. Normalize every name (and every expanded name that differs from its original) into a
    //    scratch arena, in pair order.
    struct Scratch {
        Entry entry;
        std::uint32_t offset;
        std::uint32_t length;
    };
    std::vector<Scratch> scratch;
    scratch.reserve(kb.pairCount() + (homonyms_ ? homonyms_->statistics().expandedPairs : 0));
    std::string arena;
    std::string normalized;
    const auto addKey = [&](EntityIndex entity, std::size_t pair, std::string_view name, std::uint8_t flags) {
        normalizer_.normalizeInto(name, normalized);
        // '\0' separates the keys in the arena; a name never holds one, but make sure.
        std::replace(normalized.begin(), normalized.end(), '\0', ' ');
        if (normalized.empty()) return;  // a name of punctuation only: no query can match it
        scratch.push_back({{entity, checkedOffset(pair, "names"), flags},
                           checkedOffset(arena.size(), "name bytes"),
                           checkedOffset(normalized.size(), "name bytes")});
        arena += normalized;
    };
    for (EntityIndex e = 0; e < kb.entityCount(); ++e) {
        const std::size_t first = kb.firstPair(e);
        const auto names = kb.nameIds(e);
        for (std::size_t i = 0; i < names.size(); ++i) {
            const std::size_t pair = first + i;
            const std::string_view name = kb.strings().view(names[i]);
            const bool preferred = i == 0 && kb.preferredNameId(e) == names[i];
            addKey(e, pair, name, preferred ? kPreferred : 0);
            if (homonyms_) {
                const std::string_view expanded = homonyms_->expandedName(pair);
                if (expanded != name) addKey(e, pair, expanded, kExpanded);
            }
        }
        if ((e & 0xFFF) == 0) {
            progress.checkCancelled();
            progress("Indexing names for search", 0.6 * static_cast<double>(e) / static_cast<double>(kb.entityCount()));
        }
    }

    // 2. Order the entries by key and lay the keys out in that order, so that a key's position
    //    in the arena tells its entry (for the substring scan) and its rank.
    std::vector<std::uint32_t> order(scratch.size());
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    const auto scratchKey = [&](std::uint32_t i) {
        return std::string_view(arena).substr(scratch[i].offset, scratch[i].length);
    };
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const int c = scratchKey(a).compare(scratchKey(b));
        return c != 0 ? c < 0 : a < b;
    });
    progress.checkCancelled();
    progress("Indexing names for search", 0.7);
    entries_.reserve(order.size());
    keyOffsets_.reserve(order.size() + 1);
    keyArena_.reserve(arena.size() + order.size());
    for (const std::uint32_t i : order) {
        entries_.push_back(scratch[i].entry);
        keyOffsets_.push_back(checkedOffset(keyArena_.size(), "name bytes"));
        keyArena_ += scratchKey(i);
        keyArena_.push_back('\0');
    }
    keyOffsets_.push_back(checkedOffset(keyArena_.size(), "name bytes"));
    std::string().swap(arena);
    std::vector<Scratch>().swap(scratch);

    // 3. Every word of every key, sorted, for word-prefix queries.
    for (std::uint32_t entry = 0; entry < entries_.size(); ++entry) {
        const std::uint32_t base = keyOffsets_[entry];
        forEachWord(key(entry), [&](std::size_t begin, std::size_t length) {
            words_.push_back({static_cast<std::uint32_t>(base + begin), static_cast<std::uint32_t>(length), entry});
        });
    }
    progress.checkCancelled();
    progress("Indexing names for search", 0.8);
    std::sort(words_.begin(), words_.end(), [this](const WordRef& a, const WordRef& b) {
        const int c = word(a).compare(word(b));
        return c != 0 ? c < 0 : a.entry < b.entry;
    });
    words_.shrink_to_fit();

    progress.checkCancelled();
    progress("Indexing identifiers for search", 0.9);
    buildIds();
    if (keyArena_.size() > substringScanBytes) {
        progress("Indexing name 3-grams for search", 0.95);
        postings_.emplace(
            static_cast<std::uint32_t>(entries_.size()), [this](std::uint32_t entry) { return key(entry); }, progress);
    }
    progress("Search index ready", 1.0);
}

void EntitySearchIndex::buildIds() {
    const auto addId = [this](EntityIndex e, StringId id, bool primary) {
        const std::string upper = upperAscii(kb_->strings().view(id));
        const auto push = [&](std::string_view form) {
            if (form.empty()) return;
            ids_.push_back(
                {checkedOffset(idArena_.size(), "id bytes"), checkedOffset(form.size(), "id bytes"), e, id, primary});
            idArena_ += form;
        };
        push(upper);
        // The short form after the vocabulary prefix: "D009369" for MESH:D009369, "613097" for
        // OMIM:613097, "C0011849" for UMLS:C0011849 -- how corpora and people write them.
        if (const auto colon = upper.find(':'); colon != std::string::npos && colon > 0)
            push(std::string_view(upper).substr(colon + 1));
    };
    for (EntityIndex e = 0; e < kb_->entityCount(); ++e) {
        addId(e, kb_->strings().find(kb_->primaryId(e)).value(), true);
        for (const StringId alternative : kb_->alternativeIds(e).ids()) addId(e, alternative, false);
    }
    std::sort(ids_.begin(), ids_.end(), [this](const IdRef& a, const IdRef& b) {
        const int c = idKey(a).compare(idKey(b));
        if (c != 0) return c < 0;
        if (a.primary != b.primary) return a.primary;
        return a.entity < b.entity;
    });
}

std::string_view EntitySearchIndex::entryText(const Entry& entry) const noexcept {
    if ((entry.flags & kExpanded) != 0) return homonyms_->expandedName(entry.pair);
    return kb_->strings().view(kb_->pairName(entry.pair));
}

std::uint64_t EntitySearchIndex::rank(std::uint32_t entry) const noexcept {
    const std::uint64_t length = std::min<std::uint64_t>(keyOffsets_[entry + 1] - keyOffsets_[entry] - 1, 0xFFFF);
    const std::uint64_t notPreferred = (entries_[entry].flags & kPreferred) != 0 ? 0 : kNotPreferredBit;
    return (length << kLengthShift) | notPreferred | entry;
}

std::vector<EntitySearchHit> EntitySearchIndex::search(std::string_view query, std::size_t limit) const {
    if (limit == 0) return {};
    Collector hits(limit);
    const std::string idQuery = upperAscii(trimAscii(query));
    std::string normalized = normalizer_.normalize(query);
    std::replace(normalized.begin(), normalized.end(), '\0', ' ');

    // Exact ids first: a pasted "D009369" should put that entity on top whatever its names.
    if (!idQuery.empty()) {
        const auto first =
            std::partition_point(ids_.begin(), ids_.end(), [&](const IdRef& r) { return idKey(r) < idQuery; });
        const auto last = std::partition_point(first, ids_.end(), [&](const IdRef& r) { return idKey(r) == idQuery; });
        for (auto it = first; it != last; ++it)
            hits.add({it->entity, SearchMatch::ExactId, kb_->strings().view(it->id), false, false, true});
    }
    if (!normalized.empty() && !hits.full()) searchNames(normalized, hits);
    // Ids by prefix only once the query holds a digit: "c" would otherwise list every
    // supplementary concept (C...), "d" every descriptor.
    if (!hits.full() && std::any_of(idQuery.begin(), idQuery.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const auto first =
            std::partition_point(ids_.begin(), ids_.end(), [&](const IdRef& r) { return idKey(r) < idQuery; });
        const auto last =
            std::partition_point(first, ids_.end(), [&](const IdRef& r) { return idKey(r).starts_with(idQuery); });
        std::vector<std::uint64_t> ranks;
        ranks.reserve(static_cast<std::size_t>(last - first));
        for (auto it = first; it != last; ++it)
            if (it->length != idQuery.size())  // exact ones were added above
                ranks.push_back((std::uint64_t{it->length} << 32) | static_cast<std::uint64_t>(it - ids_.begin()));
        hits.addRanked(ranks, [this](std::uint64_t r) {
            const IdRef& ref = ids_[static_cast<std::size_t>(r & 0xFFFFFFFFu)];
            return EntitySearchHit{ref.entity, SearchMatch::IdPrefix, kb_->strings().view(ref.id), false, false, true};
        });
    }
    if (!normalized.empty() && !hits.full()) searchWordPrefixes(normalized, hits);
    if (!normalized.empty() && !hits.full()) searchSubstrings(normalized, hits);
    return hits.take();
}

void EntitySearchIndex::searchNames(std::string_view query, Collector& hits) const {
    // Keys are sorted, so the keys starting with the query form one run, the equal ones first.
    const auto count = static_cast<std::uint32_t>(entries_.size());
    std::uint32_t lo = 0;
    std::uint32_t hi = count;
    while (lo < hi) {  // first key >= query
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (key(mid) < query)
            lo = mid + 1;
        else
            hi = mid;
    }
    const std::uint32_t begin = lo;
    std::uint32_t exactEnd = begin;
    while (exactEnd < count && key(exactEnd) == query) ++exactEnd;
    hi = count;
    lo = exactEnd;
    while (lo < hi) {  // first key after the run of keys starting with the query
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (key(mid).starts_with(query))
            lo = mid + 1;
        else
            hi = mid;
    }
    const std::uint32_t prefixEnd = lo;

    std::vector<std::uint64_t> ranks;
    const auto addRun = [&](std::uint32_t from, std::uint32_t to, SearchMatch match) {
        ranks.clear();
        ranks.reserve(to - from);
        for (std::uint32_t entry = from; entry < to; ++entry) ranks.push_back(rank(entry));
        hits.addRanked(ranks, [this, match](std::uint64_t r) {
            const Entry& entry = entries_[static_cast<std::size_t>(r & kPositionMask)];
            return EntitySearchHit{
                entry.entity, match, entryText(entry), (entry.flags & kPreferred) != 0, (entry.flags & kExpanded) != 0,
                false};
        });
    };
    addRun(begin, exactEnd, SearchMatch::ExactName);
    if (!hits.full()) addRun(exactEnd, prefixEnd, SearchMatch::NamePrefix);
}

void EntitySearchIndex::searchWordPrefixes(std::string_view query, Collector& hits) const {
    // The words table gives, per query word, the entries with a word starting with it; the
    // rarest query word's entries are the candidates, checked against the other words.
    std::vector<std::string_view> queryWords;
    forEachWord(query,
                [&](std::size_t begin, std::size_t length) { queryWords.push_back(query.substr(begin, length)); });
    if (queryWords.empty()) return;
    using Iterator = std::vector<WordRef>::const_iterator;
    Iterator rarestBegin = words_.end();
    Iterator rarestEnd = words_.end();
    std::size_t rarestWord = 0;
    for (std::size_t i = 0; i < queryWords.size(); ++i) {
        const std::string_view w = queryWords[i];
        const auto first =
            std::partition_point(words_.begin(), words_.end(), [&](const WordRef& r) { return word(r) < w; });
        const auto last =
            std::partition_point(first, words_.end(), [&](const WordRef& r) { return word(r).starts_with(w); });
        if (first == last) return;  // no name has a word starting so
        if (i == 0 || last - first < rarestEnd - rarestBegin) {
            rarestBegin = first;
            rarestEnd = last;
            rarestWord = i;
        }
    }
    std::vector<std::uint64_t> ranks;
    ranks.reserve(static_cast<std::size_t>(rarestEnd - rarestBegin));
    for (auto it = rarestBegin; it != rarestEnd; ++it) {
        const std::string_view candidate = key(it->entry);
        bool all = true;
        for (std::size_t i = 0; i < queryWords.size() && all; ++i)
            if (i != rarestWord) all = hasWordWithPrefix(candidate, queryWords[i]);
        if (all) ranks.push_back(rank(it->entry));
    }
    hits.addRanked(ranks, [this](std::uint64_t r) {
        const Entry& entry = entries_[static_cast<std::size_t>(r & kPositionMask)];
        return EntitySearchHit{entry.entity,
                               SearchMatch::WordPrefix,
                               entryText(entry),
                               (entry.flags & kPreferred) != 0,
                               (entry.flags & kExpanded) != 0,
                               false};
    });
}

void EntitySearchIndex::searchSubstrings(std::string_view query, Collector& hits) const {
    std::vector<std::uint64_t> ranks;
    if (postings_) {
        // UMLS size: the keys that hold the query's 3-grams (see the header); shorter queries
        // have no substring class there.
        if (query.size() < 3) return;
        for (const std::uint32_t entry : postings_->containing(query, [this](std::uint32_t e) { return key(e); }))
            ranks.push_back(rank(entry));
    } else {
        // One pass over the arena: keys are '\0'-separated and the query holds no '\0', so a
        // match never straddles two keys. After a match the scan jumps to the next key.
        const std::string_view arena(keyArena_);
        std::size_t at = arena.find(query);
        while (at != std::string_view::npos) {
            const auto next = std::upper_bound(keyOffsets_.begin(), keyOffsets_.end(), static_cast<std::uint32_t>(at));
            const auto entry = static_cast<std::uint32_t>(next - keyOffsets_.begin() - 1);
            ranks.push_back(rank(entry));
            at = arena.find(query, *next);
        }
    }
    hits.addRanked(ranks, [this](std::uint64_t r) {
        const Entry& entry = entries_[static_cast<std::size_t>(r & kPositionMask)];
        return EntitySearchHit{entry.entity,
                               SearchMatch::Substring,
                               entryText(entry),
                               (entry.flags & kPreferred) != 0,
                               (entry.flags & kExpanded) != 0,
                               false};
    });
}

std::size_t EntitySearchIndex::memoryBytes() const noexcept {
    return entries_.capacity() * sizeof(Entry) + keyArena_.capacity() + keyOffsets_.capacity() * sizeof(std::uint32_t) +
           words_.capacity() * sizeof(WordRef) + idArena_.capacity() + ids_.capacity() * sizeof(IdRef) +
           (postings_ ? postings_->memoryBytes() : 0);
}

}  // namespace linkscope::kb
