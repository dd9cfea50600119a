#include "retrieval/trigram_candidates.h"

#include <algorithm>
#include <string>
#include <utility>

#include "util/error.h"
#include "util/fnv1a.h"

namespace linkscope::retrieval {
namespace {

TfidfSettings trigramSettings() {
    TfidfSettings settings;
    settings.analyzer = Analyzer::Char;
    settings.minN = 3;
    settings.maxN = 3;
    return settings;
}

// What a built stage's views show.
struct BuiltArrays {
    SparseColumns postings;
    std::vector<std::uint64_t> nameHashes;
    std::vector<std::uint32_t> hashedEntries;
};

bool isSpace(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

TrigramCandidates::TrigramCandidates() : vectorizer_(TfidfVectorizer::restore(trigramSettings(), {}, {}, 0)) {}

void TrigramCandidates::padded(std::string_view text, std::string& out) {
    // " heart  attack ": every word between spaces, as scikit-learn's char_wb analyzer pads words,
    // so "gh" gives " gh" and "gh " and the 3-grams of a name never span two of its words.
    out.assign(1, ' ');
    bool inWord = false;
    for (const char c : text) {
        if (isSpace(c)) {
            if (inWord) out += "  ";
            inWord = false;
            continue;
        }
        out += c;
        inWord = true;
    }
    if (inWord) out += ' ';
}

TrigramCandidates TrigramCandidates::build(std::span<const std::string_view> names,
                                           const TrigramCandidateOptions& options, unsigned threads) {
    if (names.size() >= 0xFFFFFFFFull) throw Error("too many names to index: " + std::to_string(names.size()));
    if (options.candidates == 0) throw Error("the 3-gram candidate stage needs at least one candidate per query");
    // The padded names in one buffer, not a string each: at UMLS size (5.3 M names) millions of
    // small allocations held much memory during the fit and stayed in the allocator's arenas after it.
    std::string pool;
    std::vector<std::size_t> ends(names.size());
    {
        std::string text;
        std::size_t total = 0;
        for (const std::string_view name : names) {
            padded(name, text);
            total += text.size();
        }
        pool.reserve(total);
        for (std::size_t i = 0; i < names.size(); ++i) {
            padded(names[i], text);
            pool += text;
            ends[i] = pool.size();
        }
    }
    std::vector<std::string_view> views(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::size_t begin = i == 0 ? 0 : ends[i - 1];
        views[i] = std::string_view(pool).substr(begin, ends[i] - begin);
    }
    ends = {};
    TrigramCandidates index;
    index.options_ = options;
    index.vectorizer_ = TfidfVectorizer(trigramSettings());
    auto arrays = std::make_shared<BuiltArrays>();
    arrays->postings = index.vectorizer_.fitTransformColumns(views, threads);
    index.size_ = static_cast<std::uint32_t>(names.size());
    std::vector<std::pair<std::uint64_t, std::uint32_t>> hashed(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) hashed[i] = {nameHash(names[i]), static_cast<std::uint32_t>(i)};
    std::sort(hashed.begin(), hashed.end());
    arrays->nameHashes.reserve(hashed.size());
    arrays->hashedEntries.reserve(hashed.size());
    for (const auto& [hash, entry] : hashed) {
        arrays->nameHashes.push_back(hash);
        arrays->hashedEntries.push_back(entry);
    }
    index.postings_ = SparseColumnsView::of(arrays->postings);
    index.nameHashes_ = arrays->nameHashes;
    index.hashedEntries_ = arrays->hashedEntries;
    index.storage_ = std::move(arrays);
    return index;
}

TrigramCandidates TrigramCandidates::fromParts(TfidfVectorizer vectorizer, SparseColumnsView postings,
                                               std::span<const std::uint64_t> nameHashes,
                                               std::span<const std::uint32_t> hashedEntries, std::uint64_t names,
                                               std::shared_ptr<const void> storage,
                                               const TrigramCandidateOptions& options) {
    if (names >= 0xFFFFFFFFull) throw Error("too many names: " + std::to_string(names));
    if (options.candidates == 0) throw Error("the 3-gram candidate stage needs at least one candidate per query");
    if (!(vectorizer.settings() == trigramSettings()))
        throw Error("the 3-gram stage's model has other settings (" + vectorizer.settings().describe() + ")");
    if (vectorizer.documentCount() != names)
        throw Error("the 3-gram model was fitted on " + std::to_string(vectorizer.documentCount()) +
                    " names but the index holds " + std::to_string(names));
    checkColumns(postings, vectorizer.vocabularySize(), names, "3-gram posting");
    if (nameHashes.size() != names || hashedEntries.size() != names)
        throw Error("the name hashes do not match the " + std::to_string(names) + " names");
    for (std::size_t i = 0; i < nameHashes.size(); ++i) {
        if (i > 0 && nameHashes[i] < nameHashes[i - 1]) throw Error("the name hashes are not sorted");
        if (hashedEntries[i] >= names) throw Error("a hashed name's entry is out of range");
    }
    TrigramCandidates index;
    index.options_ = options;
    index.vectorizer_ = std::move(vectorizer);
    index.storage_ = std::move(storage);
    index.postings_ = postings;
    index.size_ = static_cast<std::uint32_t>(names);
    index.nameHashes_ = nameHashes;
    index.hashedEntries_ = hashedEntries;
    return index;
}

TfidfSettings TrigramCandidates::modelSettings() { return trigramSettings(); }

std::uint64_t TrigramCandidates::nameHash(std::string_view name) noexcept {
    Fnv1a64 hash;
    hash.bytes(name);
    return hash.value();
}

TrigramCandidates::Scratch::Scratch(const TrigramCandidates& index)
    : analyzer_(index.vectorizer_.settings()), scores_(index.size_, 0.0f) {}

void TrigramCandidates::candidates(std::string_view query, Scratch& scratch, std::vector<std::uint32_t>& out) const {
    out.clear();
    if (size_ == 0) return;
    padded(query, scratch.text_);  // the scratch's buffer: no allocation per query
    vectorizer_.transform(scratch.text_, scratch.analyzer_, scratch.query_);
    auto& terms = scratch.query_;
    const auto length = [&](const TermWeight& t) { return postings_.offsets[t.term + 1] - postings_.offsets[t.term]; };
    // Rarest first: they pick out the few names that share the query's unusual parts.
    std::sort(terms.begin(), terms.end(), [&](const TermWeight& a, const TermWeight& b) {
        return length(a) < length(b) || (length(a) == length(b) && a.term < b.term);
    });
    const auto common = static_cast<std::uint64_t>(options_.maxNameFraction * static_cast<double>(size_));
    float* scores = scratch.scores_.data();
    auto& touched = scratch.touched_;
    touched.clear();
    std::uint64_t read = 0;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        const std::uint64_t postings = length(terms[i]);
        // Sorted by length: once one term is too common or over the budget, so are the rest.
        if (i > 0 && (postings > common || (i >= options_.minimumTrigrams && read + postings > options_.postingBudget)))
            break;
        read += postings;
        const float q = terms[i].weight;
        for (std::uint64_t p = postings_.offsets[terms[i].term]; p < postings_.offsets[terms[i].term + 1]; ++p) {
            const std::uint32_t entry = postings_.documents[p];
            if (scores[entry] == 0.0f) touched.push_back(entry);
            scores[entry] += q * postings_.weights[p];
        }
    }
    auto& order = scratch.order_;
    order.assign(touched.begin(), touched.end());
    const std::size_t keep = std::min(options_.candidates, order.size());
    // Best partial score first; equal scores by entry, so the choice does not depend on the order
    // postings were read in.
    const auto better = [&](std::uint32_t a, std::uint32_t b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
    };
    if (keep < order.size())
        std::nth_element(order.begin(), order.begin() + static_cast<long>(keep), order.end(), better);
    out.assign(order.begin(), order.begin() + static_cast<long>(keep));
    // Hash collisions only add a candidate; the exact score decides.
    const std::uint64_t hash = nameHash(query);
    const auto [first, last] = std::equal_range(nameHashes_.begin(), nameHashes_.end(), hash);
    for (auto it = first; it != last; ++it)
        out.push_back(hashedEntries_[static_cast<std::size_t>(it - nameHashes_.begin())]);
    // In entry order, each once (a name whose partial sum underflowed to zero was touched twice).
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    for (const std::uint32_t entry : touched) scores[entry] = 0.0f;
}

std::size_t TrigramCandidates::memoryBytes() const noexcept {
    return vectorizer_.memoryBytes() + postings_.bytes() + nameHashes_.size_bytes() + hashedEntries_.size_bytes();
}

}  // namespace linkscope::retrieval
