#pragma once
// Random text for the property tests of the text layer: deterministic for a given generator
// state, and built from the pieces the algorithms react to (brackets, conjunctions, hyphens,
// dashes, Unicode letters and spaces, line breaks).
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace linkscope::test {

/// `pieces` pieces drawn from a fixed vocabulary, each followed by a space one time in three.
inline std::string randomText(std::mt19937& random, std::size_t pieces) {
    static const std::vector<std::string> vocabulary = {
        "heat", "shock",   "Factor", "(",      ")",       " (",           "HSF",    "A-T",          ",",
        ", ",   ". ",      ";",      "/",      "and",     "or",           "and/or", "of",           "the",
        "both", "1",       "II",     "C6",     "\u00e9",  "\u0391\u0392", "\u2013", "\u00a0",       "\n",
        "  ",   "-",       "cancer", "breast", "ovarian", "syndrome",     "(SS)",   "Sj\u00f6gren", "x",
        "Y",    "(n = 2)", "\u3000", "'s",     "\u00b0"};
    std::uniform_int_distribution<std::size_t> pick(0, vocabulary.size() - 1);
    std::uniform_int_distribution<int> space(0, 2);
    std::string text;
    for (std::size_t i = 0; i < pieces; ++i) {
        text += vocabulary[pick(random)];
        if (space(random) == 0) text += ' ';
    }
    return text;
}

}  // namespace linkscope::test
