#include "retrieval/trigram_candidates.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "util/error.h"

namespace linkscope::retrieval {
namespace {

TfidfSettings trigramSettings() {
    TfidfSettings settings;
    settings.analyzer = Analyzer::Char;
    settings.minN = 3;
    settings.maxN = 3;
    return settings;
}

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
    index.postings_ = index.vectorizer_.fitTransformColumns(views, threads);
    index.size_ = static_cast<std::uint32_t>(names.size());
    std::vector<std::pair<std::uint64_t, std::uint32_t>> hashed(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        hashed[i] = {std::hash<std::string_view>{}(names[i]), static_cast<std::uint32_t>(i)};
    std::sort(hashed.begin(), hashed.end());
    index.nameHashes_.reserve(hashed.size());
    index.hashedEntries_.reserve(hashed.size());
    for (const auto& [hash, entry] : hashed) {
        index.nameHashes_.push_back(hash);
        index.hashedEntries_.push_back(entry);
    }
    return index;
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
    const std::uint64_t hash = std::hash<std::string_view>{}(query);
    const auto [first, last] = std::equal_range(nameHashes_.begin(), nameHashes_.end(), hash);
    for (auto it = first; it != last; ++it)
        out.push_back(hashedEntries_[static_cast<std::size_t>(it - nameHashes_.begin())]);
    // In entry order, each once (a name whose partial sum underflowed to zero was touched twice).
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    for (const std::uint32_t entry : touched) scores[entry] = 0.0f;
}

std::size_t TrigramCandidates::memoryBytes() const noexcept {
    return vectorizer_.memoryBytes() + postings_.offsets.capacity() * sizeof(std::uint64_t) +
           postings_.documents.capacity() * sizeof(std::uint32_t) + postings_.weights.capacity() * sizeof(float) +
           nameHashes_.capacity() * sizeof(std::uint64_t) + hashedEntries_.capacity() * sizeof(std::uint32_t);
}

}  // namespace linkscope::retrieval
