#include "encoder/compact_encoder.h"

#include "corpus/corpus.h"
#include "kb/knowledge_base.h"
#include "util/error.h"

namespace linkscope::encoder {

std::vector<std::string> vocabularyTexts(const kb::KnowledgeBase& kb, std::span<const Corpus* const> corpora) {
    std::vector<std::string> texts;
    texts.reserve(kb.pairCount());
    kb.forEachNamePair([&](kb::EntityIndex, kb::StringId name) { texts.emplace_back(kb.strings().view(name)); });
    for (const Corpus* corpus : corpora)
        for (const Document& document : corpus->documents())
            for (const Mention& mention : document.mentions) texts.push_back(mention.text);
    return texts;
}

TextEncoder createCompactEncoder(const CompactEncoderPreset& preset, std::span<const std::string> texts,
                                 std::span<const std::string> markers, const EncoderOptions& options) {
    Vocabulary vocabulary = buildWordPieceVocabulary(texts, preset.vocabulary);
    TokenizerConfig tokenizerConfig;
    tokenizerConfig.doLowerCase = preset.vocabulary.lowerCase;
    tokenizerConfig.modelMaxLength = preset.config.maxPositionEmbeddings;
    BertTokenizer tokenizer(std::move(vocabulary), tokenizerConfig);
    if (!markers.empty()) tokenizer.addTokens(markers);
    BertConfig config = preset.config;
    config.vocabSize = tokenizer.vocabularySize();
    return TextEncoder::create(config, std::move(tokenizer), preset.seed, options);
}

}  // namespace linkscope::encoder
