#pragma once
// The compact encoder: the same BERT code with a small configuration (models/compact-encoder.json)
// and a WordPiece vocabulary learned from the texts it will see, so that it trains from scratch
// on a CPU where no pretrained biomedical checkpoint is available.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "encoder/bert_config.h"
#include "encoder/text_encoder.h"
#include "encoder/vocabulary_builder.h"

namespace linkscope {
class Corpus;
namespace kb {
class KnowledgeBase;
}
}  // namespace linkscope

namespace linkscope::encoder {

struct CompactEncoderPreset {
    std::string description;
    /// The architecture; vocabSize is set from the learned vocabulary.
    BertConfig config;
    VocabularyBuilderOptions vocabulary;
    std::uint64_t seed = 42;

    /// Reads a preset file: {"description", "config": {config.json keys except vocab_size},
    /// "vocabulary": {"size", "min_frequency", "lower_case"}, "pooling", "seed"}. Throws
    /// ParseError naming the file for malformed JSON, a missing "config", or a bad value.
    static CompactEncoderPreset load(const std::filesystem::path& file);
};

/// The texts a compact vocabulary is learned from: every name of the KB and the text of every
/// mention of the corpora.
std::vector<std::string> vocabularyTexts(const kb::KnowledgeBase& kb, std::span<const Corpus* const> corpora);

/// Learns the vocabulary, adds the marker tokens (e.g. [S] [E] for BELHD, [START] [END] for
/// Le & Nguyen) and initialises the model as BERT does, with the preset's seed.
TextEncoder createCompactEncoder(const CompactEncoderPreset& preset, std::span<const std::string> texts,
                                 std::span<const std::string> markers, const EncoderOptions& options = {});

}  // namespace linkscope::encoder
