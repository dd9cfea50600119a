#pragma once
// The second stage of BERT's tokenizer (transformers' WordpieceTokenizer), private to the
// encoder: one word becomes vocabulary pieces, greedy longest-match-first.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "encoder/bert_tokenizer.h"
#include "encoder/tracked_text.h"

namespace linkscope::encoder::detail {

/// A token of the tokenizer's output with the input bytes it covers.
struct TokenPiece {
    std::int32_t id = 0;
    std::string text;
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// The reference's max_input_chars_per_word: a longer word (in code points) is [UNK].
inline constexpr std::size_t kMaxCharsPerWord = 100;

/// Appends the pieces of one word: the longest vocabulary entry that starts the rest of the
/// word, "##"-prefixed after the first; a word with a position no entry covers, or one longer
/// than kMaxCharsPerWord, is one unknown token covering the whole word.
void appendWordPieces(const Vocabulary& vocabulary, std::span<const TrackedChar> word, std::int32_t unknownId,
                      const std::string& unknownToken, std::vector<TokenPiece>& pieces);

}  // namespace linkscope::encoder::detail
