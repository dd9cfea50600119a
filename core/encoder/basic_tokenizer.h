#pragma once
// The first stage of BERT's tokenizer (transformers' BasicTokenizer), private to the encoder:
// text free of added tokens becomes words, each character still knowing its input bytes.
#include <span>
#include <vector>

#include "encoder/tracked_text.h"

namespace linkscope::encoder::detail {

struct BasicTokenizerOptions {
    bool lowerCase = true;
    bool stripAccents = true;  ///< already resolved (the reference's None follows lowerCase)
    bool splitCjk = true;      ///< tokenize_chinese_chars: every CJK ideograph is a word
};

/// Appends the words of `text`, as BasicTokenizer.tokenize does: drop U+0000, U+FFFD and
/// control characters, map whitespace to spaces, space out CJK ideographs, NFC, split on
/// whitespace, per word lower-case and strip accents (NFD, drop Mn), split off punctuation.
void basicTokenize(std::span<const TrackedChar> text, const BasicTokenizerOptions& options,
                   std::vector<TrackedText>& words);

}  // namespace linkscope::encoder::detail
