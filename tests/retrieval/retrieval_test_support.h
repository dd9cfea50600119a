#pragma once
// Shared by the retrieval suites: random dictionaries with many shared n-grams and exact
// duplicates (so that ties happen), and the brute-force ranking that the index must reproduce.
#include <QtTest/QtTest>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/name_dictionary.h"
#include "retrieval/tfidf.h"

namespace linkscope::test {

/// A name of 1-4 words of 1-7 letters from a small alphabet; the same seed gives the same names.
inline std::string randomName(std::mt19937& random, std::string_view alphabet = "abcdeiklmnorst") {
    std::uniform_int_distribution<int> words(1, 4), letters(1, 7);
    std::uniform_int_distribution<std::size_t> letter(0, alphabet.size() - 1);
    std::string name;
    for (int w = words(random); w > 0; --w) {
        if (!name.empty()) name += ' ';
        for (int l = letters(random); l > 0; --l) name += alphabet[letter(random)];
    }
    return name;
}

/// `size` entries; about one in eight repeats an earlier name (with other ids), and ids come
/// from a small pool so that entries share concepts.
inline retrieval::NameDictionary randomDictionary(std::uint32_t seed, std::size_t size) {
    std::mt19937 random(seed);
    retrieval::NameDictionary dictionary;
    std::uniform_int_distribution<int> repeat(0, 7);
    std::uniform_int_distribution<int> conceptNumber(0, static_cast<int>(size / 3) + 1);
    for (std::size_t i = 0; i < size; ++i) {
        retrieval::DictionaryEntry entry;
        entry.name = (!dictionary.empty() && repeat(random) == 0)
                         ? dictionary[std::uniform_int_distribution<std::size_t>(0, dictionary.size() - 1)(random)].name
                         : randomName(random);
        entry.ids.push_back("MESH:D" + std::to_string(100000 + conceptNumber(random)));
        if (repeat(random) == 0) entry.ids.push_back("MESH:D" + std::to_string(100000 + conceptNumber(random)));
        dictionary.push_back(std::move(entry));
    }
    return dictionary;
}

/// The ranking by brute force: the query as a dense vector, its dot product with every name's
/// weighted row (from a model fitted on the same names) summed in float in ascending term order
/// (the index's ranking contract), then every name sorted by score descending and entry
/// ascending; names with score 0 are left out. Only the name's own terms are visited: the
/// other terms of a dense dot product add exact zeros, which change no float.
inline std::vector<retrieval::Candidate> bruteForceRanking(const retrieval::SparseRows& rows, std::size_t vocabulary,
                                                           const retrieval::SparseVector& query, std::size_t k) {
    std::vector<float> queryDense(vocabulary, 0.0f);
    for (const auto& term : query) queryDense[term.term] = term.weight;
    std::vector<retrieval::Candidate> all;
    for (std::size_t row = 0; row < rows.rows(); ++row) {
        const auto terms = rows.rowTerms(row);
        const auto weights = rows.rowWeights(row);
        float score = 0.0f;
        for (std::size_t i = 0; i < terms.size(); ++i) score += queryDense[terms[i]] * weights[i];
        if (score > 0.0f) all.push_back({static_cast<std::uint32_t>(row), score});
    }
    std::sort(all.begin(), all.end(), [](const retrieval::Candidate& a, const retrieval::Candidate& b) {
        return a.score > b.score || (a.score == b.score && a.entry < b.entry);
    });
    if (all.size() > k) all.resize(k);
    return all;
}

/// "" when the two rankings are the same entries with bit-identical scores, else the first difference.
inline std::string rankingDifference(const std::vector<retrieval::Candidate>& got,
                                     const std::vector<retrieval::Candidate>& expected) {
    if (got.size() != expected.size())
        return "got " + std::to_string(got.size()) + " candidates, expected " + std::to_string(expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i].entry != expected[i].entry || got[i].score != expected[i].score)
            return "rank " + std::to_string(i) + ": got entry " + std::to_string(got[i].entry) + " score " +
                   std::to_string(got[i].score) + ", expected entry " + std::to_string(expected[i].entry) + " score " +
                   std::to_string(expected[i].score);
    return {};
}

inline std::vector<std::string_view> namesOf(const retrieval::NameDictionary& dictionary) {
    std::vector<std::string_view> names;
    for (const auto& entry : dictionary) names.emplace_back(entry.name);
    return names;
}

}  // namespace linkscope::test
