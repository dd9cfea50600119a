// WordPiece vocabulary learning as Hugging Face's WordPieceTrainer does it: BPE over the
// characters of each pre-tokenized word, where every character after the first of a word
// carries the "##" continuation prefix, so that merges yield pieces WordPiece can use.
#include "encoder/vocabulary_builder.h"

#include <algorithm>
#include <queue>
#include <set>
#include <unordered_map>

#include "encoder/basic_tokenizer.h"
#include "encoder/tracked_text.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

using PairKey = std::uint64_t;  // left symbol id in the high half, right in the low half

PairKey pairKey(std::int32_t left, std::int32_t right) {
    return (static_cast<PairKey>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
}
std::int32_t leftOf(PairKey key) { return static_cast<std::int32_t>(key >> 32); }
std::int32_t rightOf(PairKey key) { return static_cast<std::int32_t>(key & 0xFFFFFFFFu); }

struct Word {
    std::vector<std::int32_t> symbols;
    std::uint64_t count = 0;
};

/// Distinct words of the texts with their counts, in code point order (determinism does not
/// depend on hashing).
std::vector<std::pair<std::u32string, std::uint64_t>> countWords(std::span<const std::string> texts, bool lowerCase) {
    const detail::BasicTokenizerOptions basic{lowerCase, lowerCase, true};
    std::unordered_map<std::u32string, std::uint64_t> counts;
    std::vector<detail::TrackedText> words;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        detail::TrackedText chars;
        try {
            chars = detail::decodeTracked(texts[i]);
        } catch (const Error& e) {
            throw Error("vocabulary text " + std::to_string(i) + ": " + e.what());
        }
        words.clear();
        detail::basicTokenize(chars, basic, words);
        for (const auto& word : words) {
            std::u32string key;
            key.reserve(word.size());
            for (const auto& c : word) key.push_back(c.codePoint);
            ++counts[key];
        }
    }
    std::vector<std::pair<std::u32string, std::uint64_t>> sorted(counts.begin(), counts.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

/// The merge loop: pair counts kept up to date incrementally (each merge touches only the
/// words that contain its pair) and a max-heap of candidates refreshed lazily.
class MergeLearner {
public:
    MergeLearner(std::vector<std::string>& tokens, std::vector<Word> words)
        : tokens_(tokens), words_(std::move(words)), queue_(Worse{&tokens_}) {
        for (const auto& token : tokens_) ids_.emplace(token, static_cast<std::int32_t>(ids_.size()));
        for (std::size_t w = 0; w < words_.size(); ++w) {
            const auto& s = words_[w].symbols;
            for (std::size_t i = 0; i + 1 < s.size(); ++i) increase(pairKey(s[i], s[i + 1]), words_[w].count, w);
        }
        pushChanged();
    }

    void run(std::size_t vocabularySize, std::uint64_t minFrequency) {
        while (tokens_.size() < vocabularySize && !queue_.empty()) {
            const Candidate top = queue_.top();
            queue_.pop();
            const auto found = counts_.find(top.key);
            const std::uint64_t current = found == counts_.end() ? 0 : found->second;
            if (top.count != current) {
                // Stale: the pair occurs less often now. (A pair that grew was pushed again.)
                if (current > 0 && top.count > current) queue_.push({current, top.key});
                continue;
            }
            if (current < minFrequency) break;  // the best pair is too rare: so are all others
            merge(top.key);
        }
    }

private:
    struct Candidate {
        std::uint64_t count;
        PairKey key;
    };
    // Priority: the most frequent pair; among equals the lexicographically smallest (left,
    // right) strings, so that the result never depends on id or hash order.
    struct Worse {
        const std::vector<std::string>* tokens;
        bool operator()(const Candidate& x, const Candidate& y) const {
            if (x.count != y.count) return x.count < y.count;
            const auto& t = *tokens;
            const auto xl = static_cast<std::size_t>(leftOf(x.key)), yl = static_cast<std::size_t>(leftOf(y.key));
            if (t[xl] != t[yl]) return t[xl] > t[yl];
            return t[static_cast<std::size_t>(rightOf(x.key))] > t[static_cast<std::size_t>(rightOf(y.key))];
        }
    };

    void increase(PairKey key, std::uint64_t by, std::size_t word) {
        counts_[key] += by;
        where_[key].push_back(static_cast<std::uint32_t>(word));
        changed_.push_back(key);
    }
    void decrease(PairKey key, std::uint64_t by) {
        const auto it = counts_.find(key);
        if (it == counts_.end()) return;
        if (it->second <= by)
            counts_.erase(it);
        else
            it->second -= by;
    }
    void pushChanged() {
        std::sort(changed_.begin(), changed_.end());
        changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
        for (const PairKey key : changed_)
            if (const auto it = counts_.find(key); it != counts_.end()) queue_.push({it->second, key});
        changed_.clear();
    }

    void merge(PairKey key) {
        const std::int32_t a = leftOf(key), b = rightOf(key);
        const std::string& right = tokens_[static_cast<std::size_t>(b)];
        std::string merged = tokens_[static_cast<std::size_t>(a)] + (right.starts_with("##") ? right.substr(2) : right);
        // Two different pairs can spell the same piece ("##ab"+"##c", "##a"+"##bc"): reuse it.
        std::int32_t c = 0;
        if (const auto it = ids_.find(merged); it != ids_.end()) {
            c = it->second;
        } else {
            c = static_cast<std::int32_t>(tokens_.size());
            ids_.emplace(merged, c);
            tokens_.push_back(std::move(merged));
        }
        std::vector<std::uint32_t> where = std::move(where_[key]);
        where_.erase(key);
        std::sort(where.begin(), where.end());
        where.erase(std::unique(where.begin(), where.end()), where.end());
        for (const std::uint32_t w : where) {
            auto& s = words_[w].symbols;
            const std::uint64_t count = words_[w].count;
            std::size_t write = 0;
            for (std::size_t read = 0; read < s.size();) {
                if (read + 1 < s.size() && s[read] == a && s[read + 1] == b) {
                    if (write > 0) {
                        decrease(pairKey(s[write - 1], a), count);
                        increase(pairKey(s[write - 1], c), count, w);
                    }
                    if (read + 2 < s.size()) {
                        decrease(pairKey(b, s[read + 2]), count);
                        increase(pairKey(c, s[read + 2]), count, w);
                    }
                    decrease(key, count);
                    s[write++] = c;
                    read += 2;
                } else {
                    s[write++] = s[read++];
                }
            }
            s.resize(write);
        }
        pushChanged();
    }

    std::vector<std::string>& tokens_;
    std::vector<Word> words_;
    std::unordered_map<std::string, std::int32_t> ids_;
    std::unordered_map<PairKey, std::uint64_t> counts_;
    std::unordered_map<PairKey, std::vector<std::uint32_t>> where_;  // words that may hold the pair
    std::vector<PairKey> changed_;
    std::priority_queue<Candidate, std::vector<Candidate>, Worse> queue_;
};

}  // namespace

Vocabulary buildWordPieceVocabulary(std::span<const std::string> texts, const VocabularyBuilderOptions& options) {
    const auto counted = countWords(texts, options.lowerCase);
    std::set<char32_t> alphabet;
    for (const auto& [word, count] : counted) alphabet.insert(word.begin(), word.end());

    std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    // Every character in both forms, so that any word of seen characters is covered.
    std::unordered_map<char32_t, std::int32_t> initial, continuation;
    for (const char32_t c : alphabet) {
        initial.emplace(c, static_cast<std::int32_t>(tokens.size()));
        detail::appendUtf8(tokens.emplace_back(), c);
    }
    for (const char32_t c : alphabet) {
        continuation.emplace(c, static_cast<std::int32_t>(tokens.size()));
        detail::appendUtf8(tokens.emplace_back("##"), c);
    }
    if (options.vocabularySize > tokens.size()) {
        std::vector<Word> words;
        words.reserve(counted.size());
        for (const auto& [text, count] : counted) {
            Word& word = words.emplace_back();
            word.count = count;
            for (std::size_t i = 0; i < text.size(); ++i)
                word.symbols.push_back(i == 0 ? initial.at(text[i]) : continuation.at(text[i]));
        }
        MergeLearner learner(tokens, std::move(words));
        learner.run(options.vocabularySize, std::max<std::uint64_t>(1, options.minFrequency));
    }
    return Vocabulary::fromTokens(std::move(tokens));
}

}  // namespace linkscope::encoder
