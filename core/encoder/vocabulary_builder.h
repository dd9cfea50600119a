#pragma once
// A small WordPiece vocabulary learned from the texts a compact encoder will see (KB names and
// training mentions), for encoders trained from scratch: Hugging Face's WordPiece trainer
// learns merges the way BPE does and writes the pieces with "##" continuations; we do the same.
#include <cstddef>
#include <span>
#include <string>

#include "encoder/bert_tokenizer.h"

namespace linkscope::encoder {

struct VocabularyBuilderOptions {
    /// Target size including special tokens and every character seen; 0 builds a character
    /// vocabulary (each character and its "##" form, no merges).
    std::size_t vocabularySize = 8000;
    std::size_t minFrequency = 2;  ///< a merge must occur at least this often
    bool lowerCase = true;         ///< pre-tokenize as an uncased BERT does
};

/// Special tokens first ([PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, [MASK] 4), then the characters,
/// then merges in the order learned. Deterministic for the same texts and options.
Vocabulary buildWordPieceVocabulary(std::span<const std::string> texts, const VocabularyBuilderOptions& options);

}  // namespace linkscope::encoder
