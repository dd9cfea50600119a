// WordPiece vocabulary learning: merges computed by hand on tiny corpora, the character mode,
// the size cap, determinism, and the incremental pair counts checked against a plain
// recount-everything implementation written here.
#include <QtTest/QtTest>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "encoder/bert_tokenizer.h"
#include "encoder/vocabulary_builder.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;

namespace {

const std::vector<std::string> kSpecials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

std::vector<std::string> tokensOf(const Vocabulary& vocabulary) {
    return {vocabulary.tokens().begin(), vocabulary.tokens().end()};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::string joined(const std::vector<std::string>& tokens) {
    std::string out;
    for (const auto& token : tokens) out += (out.empty() ? "" : " | ") + token;
    return out;
}

// The slow, obviously right learner: recount every pair of every word before each merge.
// Words are given already split into characters (ASCII only, which is all it is used on).
std::vector<std::string> naiveMerges(const std::map<std::string, int>& wordCounts, std::size_t merges,
                                     int minFrequency) {
    std::vector<std::pair<std::vector<std::string>, int>> words;
    for (const auto& [word, count] : wordCounts) {
        std::vector<std::string> symbols;
        for (std::size_t i = 0; i < word.size(); ++i) symbols.push_back((i ? "##" : "") + std::string(1, word[i]));
        words.emplace_back(symbols, count);
    }
    std::vector<std::string> learned;
    while (learned.size() < merges) {
        std::map<std::pair<std::string, std::string>, int> counts;  // ordered: ties -> smallest
        for (const auto& [symbols, count] : words)
            for (std::size_t i = 0; i + 1 < symbols.size(); ++i) counts[{symbols[i], symbols[i + 1]}] += count;
        const std::pair<std::string, std::string>* best = nullptr;
        int bestCount = 0;
        for (const auto& [pair, count] : counts)
            if (count > bestCount) {
                best = &pair;
                bestCount = count;
            }
        if (!best || bestCount < minFrequency) break;
        const auto [left, right] = *best;
        const std::string merged = left + (right.starts_with("##") ? right.substr(2) : right);
        for (auto& [symbols, count] : words) {
            std::vector<std::string> out;
            for (std::size_t i = 0; i < symbols.size();) {
                if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
                    out.push_back(merged);
                    i += 2;
                } else {
                    out.push_back(symbols[i++]);
                }
            }
            symbols = std::move(out);
        }
        if (std::find(learned.begin(), learned.end(), merged) == learned.end()) learned.push_back(merged);
    }
    return learned;
}

}  // namespace

class TestVocabularyBuilder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mergesOfATinyCorpus() {
        // Words: "ab" x3, "abc" x1, "bc" x2. Symbols: a ##b | a ##b ##c | b ##c.
        // Pair counts: (a,##b) 3+1 = 4, (b,##c) 2, (##b,##c) 1.
        //  merge 1: (a,##b) -> "ab"; "abc" becomes ab ##c: (ab,##c) 1, (##b,##c) gone.
        //  merge 2: (b,##c) 2 -> "bc".
        //  merge 3: (ab,##c) 1 -> "abc" (only when a frequency of 1 is enough).
        const std::vector<std::string> texts = {"ab ab ab", "abc", "bc BC"};
        const auto alphabet = concat(kSpecials, {"a", "b", "c", "##a", "##b", "##c"});
        VocabularyBuilderOptions options;
        options.vocabularySize = 100;
        options.minFrequency = 1;
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))),
                 joined(concat(alphabet, {"ab", "bc", "abc"})));
        // minFrequency 2 stops before the third merge.
        options.minFrequency = 2;
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))), joined(concat(alphabet, {"ab", "bc"})));
        // The size cap: 12 tokens leave room for one merge.
        options.vocabularySize = 12;
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))), joined(concat(alphabet, {"ab"})));
    }
    void repeatedSymbolsAreCountedOnce() {
        // "aaaa" is a ##a ##a ##a: (a,##a) 1, (##a,##a) 2. Merging (##a,##a) left to right
        // gives a ##aa ##a, whose pairs are (a,##aa) 1 and (##aa,##a) 1: a tie, and "##aa" <
        // "a" ('#' sorts before 'a'), so "##aaa" comes next, then "aaaa".
        VocabularyBuilderOptions options;
        options.minFrequency = 1;
        const std::vector<std::string> texts = {"aaaa"};
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))),
                 joined(concat(kSpecials, {"a", "##a", "##aa", "##aaa", "aaaa"})));
    }
    void tiesAreBrokenLexicographically() {
        VocabularyBuilderOptions options;
        options.minFrequency = 1;
        options.vocabularySize = 5 + 8 + 1;  // one merge
        // (a,##b) and (c,##d) both occur once: "a" < "c".
        std::vector<std::string> texts = {"cd ab"};
        QCOMPARE(tokensOf(buildWordPieceVocabulary(texts, options)).back(), std::string("ab"));
        // Same left symbol: "##b" < "##c".
        options.vocabularySize = 5 + 6 + 1;
        texts = {"ac ab"};
        QCOMPARE(tokensOf(buildWordPieceVocabulary(texts, options)).back(), std::string("ab"));
    }
    void characterMode() {
        // Size 0: special tokens, every character seen, then every character as a continuation,
        // in code point order; lower-cased and accent-stripped as uncased BERT pre-tokenizes.
        VocabularyBuilderOptions options;
        options.vocabularySize = 0;
        const std::vector<std::string> texts = {"Éb-a", "乳a"};
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))),
                 joined(concat(kSpecials, {"-", "a", "b", "e", "乳", "##-", "##a", "##b", "##e", "##乳"})));
        // Cased keeps "É" (and does not strip its accent).
        options.lowerCase = false;
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))),
                 joined(concat(kSpecials, {"-", "a", "b", "É", "乳", "##-", "##a", "##b", "##É", "##乳"})));
        // A target smaller than the alphabet keeps the alphabet (no character may be unknown).
        options.vocabularySize = 3;
        QCOMPARE(buildWordPieceVocabulary(texts, options).size(), std::size_t{15});
    }
    void emptyInput() {
        const std::vector<std::string> texts = {"", "  "};
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, {}))), joined(kSpecials));
        QCOMPARE(buildWordPieceVocabulary({}, {}).size(), std::size_t{5});
    }
    void invalidUtf8IsAnError() {
        const std::vector<std::string> texts = {"fine", "bad \xff"};
        QVERIFY_THROWS_EXCEPTION(Error, buildWordPieceVocabulary(texts, {}));
    }
    void matchesARecountingLearner() {
        // A corpus with many overlapping pairs; the incremental learner must pick the same merges
        // as recounting everything each time.
        std::vector<std::string> texts;
        std::map<std::string, int> wordCounts;
        std::uint32_t state = 12345;
        const auto next = [&] { return state = state * 1103515245u + 12345u, (state >> 16) & 0x7FFF; };
        for (int t = 0; t < 400; ++t) {
            std::string text;
            for (int w = 0; w < 4; ++w) {
                std::string word;
                const auto length = 1 + next() % 9;
                for (std::uint32_t k = 0; k < length; ++k) word.push_back("aabbcde"[next() % 7]);
                ++wordCounts[word];
                text += word + " ";
            }
            texts.push_back(text);
        }
        VocabularyBuilderOptions options;
        options.minFrequency = 2;
        options.vocabularySize = 5 + 10 + 150;
        const auto learned = tokensOf(buildWordPieceVocabulary(texts, options));
        const auto expected = naiveMerges(wordCounts, 150, 2);
        QCOMPARE(joined({learned.begin() + 15, learned.end()}), joined(expected));
        QVERIFY(learned.size() > 100);  // the corpus does allow many merges
    }
    void deterministic() {
        std::vector<std::string> texts = {"breast cancer",        "ovarian cancer",    "breast-ovarian cancer syndrome",
                                          "Cancer of the breast", "colorectal cancer", "colon cancer"};
        VocabularyBuilderOptions options;
        options.vocabularySize = 60;
        const auto first = tokensOf(buildWordPieceVocabulary(texts, options));
        std::reverse(texts.begin(), texts.end());  // word order must not matter
        QCOMPARE(joined(tokensOf(buildWordPieceVocabulary(texts, options))), joined(first));
        QVERIFY(first.size() <= 60);
    }
    void learnedVocabularyTokenizes() {
        // Every word of the corpus is covered: no [UNK] for its texts.
        const std::vector<std::string> texts = {"breast cancer", "breast cancers", "cancer of the breast"};
        VocabularyBuilderOptions options;
        options.minFrequency = 2;
        options.vocabularySize = 40;
        const BertTokenizer tokenizer(buildWordPieceVocabulary(texts, options), TokenizerConfig{});
        for (const auto& text : texts) {
            const auto pieces = tokenizer.tokenize(text);
            QVERIFY(std::find(pieces.begin(), pieces.end(), "[UNK]") == pieces.end());
        }
        // "breast" occurs 3 times, "cancer" 2 + "cancers" 1: both end up whole.
        const auto pieces = tokenizer.tokenize("Breast cancers");
        QCOMPARE(joined(pieces).substr(0, 15), std::string("breast | cancer"));
    }
};

QTEST_APPLESS_MAIN(TestVocabularyBuilder)
#include "test_vocabulary_builder.moc"
