#pragma once
// Hugging Face tokenizers' tokenizer.json for a BERT WordPiece tokenizer: the vocabulary and the
// settings that vocab.txt plus tokenizer_config.json would give, read for checkpoints that ship
// tokenizer.json without vocab.txt. Only what BertTokenizer implements is accepted: model
// WordPiece with "##" continuations and 100 characters per word, normalizer BertNormalizer
// (clean_text true), pre_tokenizer BertPreTokenizer. Any other model, normalizer or
// pre-tokenizer is refused, naming it, rather than tokenized differently.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "encoder/bert_tokenizer.h"

namespace linkscope::encoder {

inline constexpr const char* kTokenizerJsonFile = "tokenizer.json";

/// The most vocabulary entries or added tokens read from tokenizer.json (WordPiece vocabularies
/// hold tens of thousands; the bound keeps a hostile file from asking for billions of ids).
inline constexpr std::size_t kMaxTokenizerJsonTokens = std::size_t{1} << 22;

struct TokenizerJson {
    Vocabulary vocabulary;
    /// doLowerCase, stripAccents and tokenizeChineseChars from the normalizer, unkToken from the
    /// model; the other fields keep their defaults.
    TokenizerConfig config;
    /// added_tokens: content and id, in the file's order.
    std::vector<std::pair<std::string, std::int32_t>> addedTokens;
};

/// Parses tokenizer.json text; `source` names it in errors. Throws ParseError(source, 0, ...) for
/// malformed JSON, wrong types, a vocabulary whose ids are not 0..n-1 each once, an empty or
/// duplicate token, more than kMaxTokenizerJsonTokens entries, or a model, normalizer or
/// pre-tokenizer other than BERT's.
TokenizerJson parseTokenizerJson(const std::string& text, const std::string& source);

/// parseTokenizerJson of a file (at most kMaxTextFileBytes, valid UTF-8).
TokenizerJson readTokenizerJson(const std::filesystem::path& file);

}  // namespace linkscope::encoder
