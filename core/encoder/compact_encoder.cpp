#include "encoder/compact_encoder.h"

#include <nlohmann/json.hpp>

#include "corpus/corpus.h"
#include "kb/knowledge_base.h"
#include "util/error.h"
#include "util/json_file.h"

namespace linkscope::encoder {
CompactEncoderPreset CompactEncoderPreset::load(const std::filesystem::path& file) {
    const std::string name = file.string();
    nlohmann::json json = readJsonFile(file);
    if (!json.is_object() || !json.contains("config") || !json["config"].is_object())
        throw ParseError(name, 0, "a compact encoder preset needs a \"config\" object (config.json keys)");
    CompactEncoderPreset preset;
    try {
        preset.description = json.value("description", "");
        nlohmann::json config = json["config"];
        // The vocabulary is learned later; a provisional size of 1 lets the config be checked now.
        config["vocab_size"] = 1;
        if (json.contains("pooling")) config["linkscope"]["pooling"] = json["pooling"];
        preset.config = BertConfig::parse(config.dump(), name);  // validates the sizes
        if (json.contains("vocabulary")) {
            const auto& vocabulary = json["vocabulary"];
            preset.vocabulary.vocabularySize = vocabulary.value("size", preset.vocabulary.vocabularySize);
            preset.vocabulary.minFrequency = vocabulary.value("min_frequency", preset.vocabulary.minFrequency);
            preset.vocabulary.lowerCase = vocabulary.value("lower_case", preset.vocabulary.lowerCase);
        }
        preset.seed = json.value("seed", preset.seed);
    } catch (const nlohmann::json::exception& e) {
        throw ParseError(name, 0, std::string("bad value: ") + e.what());
    }
    return preset;
}

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
