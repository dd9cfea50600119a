#pragma once
// A tiny BERT for tests that drive an encoder (method linker, curation): a WordPiece vocabulary
// learned from the texts the test will encode (so nothing is [UNK]), the marker tokens of the
// context methods added, one layer of 32 dimensions, random weights from a fixed seed and no
// dropout, so the same text always gives the same vector. Needs LibTorch (TextEncoder::create).
#include <span>
#include <string>
#include <vector>

#include "encoder/bert_config.h"
#include "encoder/bert_tokenizer.h"
#include "encoder/text_encoder.h"
#include "encoder/vocabulary_builder.h"

namespace linkscope::test {

inline encoder::TextEncoder tinyBert(std::span<const std::string> texts, encoder::Pooling pooling,
                                     unsigned long long seed = 7) {
    encoder::VocabularyBuilderOptions vocabulary;
    vocabulary.vocabularySize = 0;
    const std::vector<std::string> corpus(texts.begin(), texts.end());
    encoder::BertTokenizer tokenizer(encoder::buildWordPieceVocabulary(corpus, vocabulary), encoder::TokenizerConfig{});
    const std::vector<std::string> markers = {"[S]", "[E]", "[START]", "[END]"};
    tokenizer.addTokens(markers);

    encoder::BertConfig config;
    config.hiddenSize = 32;
    config.numHiddenLayers = 1;
    config.numAttentionHeads = 2;
    config.intermediateSize = 64;
    config.maxPositionEmbeddings = 96;
    config.hiddenDropoutProb = 0.0;
    config.attentionProbsDropoutProb = 0.0;
    config.pooling = pooling;
    encoder::EncoderOptions options;
    options.device = encoder::DevicePreference::Cpu;
    options.maxLength = 96;
    return encoder::TextEncoder::create(config, std::move(tokenizer), seed, options);
}

}  // namespace linkscope::test
