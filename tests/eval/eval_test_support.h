#pragma once
// Rankers for the evaluation suites. The evaluation engine takes its ranking as a function; these
// are small but real rankers written here so that the suites never depend on the retrieval
// module nor on hard-coded rankings:
//   WordOverlapRanker  Jaccard similarity of the word sets, ties broken by dictionary order:
//                      easy to follow by hand, for the metric suites;
//   CharTfidfRanker    scikit-learn's TfidfVectorizer(analyzer="char", ngram_range=(1, 2))
//                      (smooth idf, raw counts, l2 norm) fitted on the dictionary names and
//                      ranked by cosine, ties broken by dictionary order: BioSyn's sparse
//                      encoder, for the data suite.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "eval/evaluate.h"
#include "retrieval/name_dictionary.h"
#include "util/utf8.h"

namespace linkscope::test {

inline std::set<std::string> wordSet(std::string_view text) {
    std::set<std::string> words;
    std::istringstream in{std::string(text)};
    for (std::string word; in >> word;) words.insert(word);
    return words;
}

/// Keeps the k best (score, index) pairs: higher score first, then lower index. A bounded heap
/// scan, compiled optimized and uninstrumented like accumulateScores below: the data suite
/// selects from 73,000 scores a few thousand times.
[[gnu::optimize("O2"), gnu::no_sanitize("address", "undefined")]] inline std::vector<retrieval::Candidate> topK(
    const std::vector<float>& scores, std::size_t k, bool skipZero) {
    const auto better = [&](std::uint32_t a, std::uint32_t b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
    };
    std::vector<std::uint32_t> heap;  // the worst kept candidate on top
    heap.reserve(k + 1);
    for (std::uint32_t i = 0; i < scores.size(); ++i) {
        if (skipZero && !(scores[i] > 0.0f)) continue;
        if (heap.size() < k) {
            heap.push_back(i);
            std::push_heap(heap.begin(), heap.end(), better);
        } else if (k > 0 && better(i, heap.front())) {
            std::pop_heap(heap.begin(), heap.end(), better);
            heap.back() = i;
            std::push_heap(heap.begin(), heap.end(), better);
        }
    }
    std::sort_heap(heap.begin(), heap.end(), better);
    std::vector<retrieval::Candidate> out;
    for (const auto i : heap) out.push_back({i, scores[i]});
    return out;
}

class WordOverlapRanker {
public:
    explicit WordOverlapRanker(const retrieval::NameDictionary& dictionary) {
        for (const auto& entry : dictionary) words_.push_back(wordSet(entry.name));
    }

    std::vector<std::vector<retrieval::Candidate>> operator()(std::span<const std::string> queries,
                                                              std::size_t k) const {
        std::vector<std::vector<retrieval::Candidate>> out;
        for (const auto& query : queries) {
            const auto q = wordSet(query);
            std::vector<float> scores(words_.size(), 0.0f);
            for (std::size_t i = 0; i < words_.size(); ++i) {
                std::size_t shared = 0;
                for (const auto& word : q) shared += words_[i].count(word);
                const std::size_t total = q.size() + words_[i].size() - shared;
                scores[i] = total == 0 ? 0.0f : static_cast<float>(shared) / static_cast<float>(total);
            }
            out.push_back(topK(scores, k, true));
        }
        return out;
    }

    eval::RankFn asRankFn() const {
        return [this](std::span<const std::string> queries, std::size_t k) { return (*this)(queries, k); };
    }

private:
    std::vector<std::set<std::string>> words_;
};

/// Adds weight * posting weight to the score of every posting's document. The data suite ranks
/// about a thousand queries against 73,000 names several times; under the sanitizers this loop
/// alone took most of the suite's minutes, so it is compiled optimized and uninstrumented.
struct TfidfPosting {
    std::uint32_t document;
    float weight;
};
[[gnu::optimize("O2"), gnu::no_sanitize("address", "undefined")]] inline void accumulateScores(
    const TfidfPosting* postings, std::size_t count, float weight, float* scores) {
    for (std::size_t i = 0; i < count; ++i) scores[postings[i].document] += weight * postings[i].weight;
}

class CharTfidfRanker {
public:
    /// Fits the idf on `fitNames` (BioSyn fits on its train dictionary) or, when empty, on the
    /// dictionary's own names; n-grams outside the fitted vocabulary are ignored, as sklearn's
    /// transform does.
    explicit CharTfidfRanker(const retrieval::NameDictionary& dictionary, std::span<const std::string> fitNames = {})
        : size_(dictionary.size()) {
        std::vector<std::uint32_t> documentFrequency;
        const auto learn = [this](const std::string& gram) {
            return vocabulary_.emplace(gram, static_cast<std::uint32_t>(vocabulary_.size())).first->second;
        };
        const auto fit = [&](std::string_view name) {
            for (const auto& [feature, count] : counts(name, learn)) {
                if (feature >= documentFrequency.size()) documentFrequency.resize(feature + 1, 0);
                ++documentFrequency[feature];
            }
        };
        if (fitNames.empty())
            for (const auto& entry : dictionary) fit(entry.name);
        else
            for (const auto& name : fitNames) fit(name);
        const double n = static_cast<double>(fitNames.empty() ? dictionary.size() : fitNames.size());
        idf_.resize(documentFrequency.size());
        for (std::size_t f = 0; f < idf_.size(); ++f)
            idf_[f] = static_cast<float>(std::log((1.0 + n) / (1.0 + documentFrequency[f])) + 1.0);
        postings_.resize(idf_.size());
        for (std::uint32_t d = 0; d < dictionary.size(); ++d)
            for (const auto& [feature, weight] :
                 weigh(counts(dictionary[d].name, [this](const std::string& g) { return knownFeature(g); })))
                postings_[feature].push_back({d, weight});
    }

    std::vector<std::vector<retrieval::Candidate>> operator()(std::span<const std::string> queries,
                                                              std::size_t k) const {
        std::vector<std::vector<retrieval::Candidate>> out;
        std::vector<float> scores(size_);
        for (const auto& query : queries) {
            std::fill(scores.begin(), scores.end(), 0.0f);
            for (const auto& [feature, weight] :
                 weigh(counts(query, [this](const std::string& g) { return knownFeature(g); }))) {
                const auto& list = postings_[feature];
                accumulateScores(list.data(), list.size(), weight, scores.data());
            }
            out.push_back(topK(scores, k, false));
        }
        return out;
    }

    eval::RankFn asRankFn() const {
        return [this](std::span<const std::string> queries, std::size_t k) { return (*this)(queries, k); };
    }

private:
    static constexpr std::uint32_t kUnknown = ~std::uint32_t{0};

    /// The feature of an n-gram, kUnknown outside the fitted vocabulary.
    std::uint32_t knownFeature(const std::string& gram) const {
        const auto found = vocabulary_.find(gram);
        return found == vocabulary_.end() ? kUnknown : found->second;
    }

    /// Character 1- and 2-grams (code points) after collapsing white space, as sklearn's
    /// _char_ngrams does, counted per feature; featureOf returns kUnknown to skip an n-gram.
    template <class FeatureOf>
    static std::unordered_map<std::uint32_t, float> counts(std::string_view text, FeatureOf&& featureOf) {
        std::string collapsed;
        bool space = false;
        for (const char c : text) {
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                space = true;
                continue;
            }
            if (space) collapsed += ' ';
            space = false;
            collapsed += c;
        }
        if (space) collapsed += ' ';
        const auto offsets = utf8::characterOffsets(collapsed);
        std::unordered_map<std::uint32_t, float> out;
        const std::size_t characters = offsets.size() - 1;
        for (std::size_t n = 1; n <= 2; ++n) {
            for (std::size_t i = 0; i + n <= characters; ++i) {
                const std::uint32_t feature = featureOf(collapsed.substr(offsets[i], offsets[i + n] - offsets[i]));
                if (feature != kUnknown) out[feature] += 1.0f;
            }
        }
        return out;
    }

    std::vector<std::pair<std::uint32_t, float>> weigh(const std::unordered_map<std::uint32_t, float>& raw) const {
        std::vector<std::pair<std::uint32_t, float>> weights;
        double norm = 0.0;
        for (const auto& [feature, count] : raw) {
            const float w = count * idf_[feature];
            weights.emplace_back(feature, w);
            norm += static_cast<double>(w) * w;
        }
        norm = std::sqrt(norm);
        if (norm > 0.0)
            for (auto& [feature, w] : weights) w = static_cast<float>(w / norm);
        return weights;
    }

    std::size_t size_;
    std::unordered_map<std::string, std::uint32_t> vocabulary_;
    std::vector<float> idf_;
    std::vector<std::vector<TfidfPosting>> postings_;
};

}  // namespace linkscope::test
