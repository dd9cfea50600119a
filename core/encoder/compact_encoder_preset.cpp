// Reading a compact encoder preset (models/compact/*.json): JSON only, no LibTorch, so that the
// preset is checked (and its sizes bounded) by every build, the light CLI and the GUI included.
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "encoder/compact_encoder.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/json_number.h"

namespace linkscope::encoder {
namespace {
// Bounds of a from-scratch encoder, checked before anything is allocated (a preset is outside
// data: a hostile or mistyped size must be a clear error naming the file, not an allocation of
// whatever it says). BERT-large, the largest encoder these methods use, has 24 layers, 512
// positions, a 30,522-token vocabulary and 335 M parameters; the bounds leave a wide margin.
constexpr std::size_t kMaxLayers = 256;
constexpr std::size_t kMaxPositions = 8192;
constexpr std::size_t kMaxVocabulary = 1'000'000;
constexpr std::size_t kMaxParameters = 2'000'000'000;  // 8 GB of fp32 weights before the optimizer's state

std::uint64_t unsignedField(const nlohmann::json& object, const char* key, std::uint64_t fallback, std::uint64_t max,
                            const std::string& file, const std::string& where) {
    const auto it = object.find(key);
    return it == object.end() ? fallback : wholeNumberIn(*it, max, file, where + "\"" + key + "\"");
}
}  // namespace

CompactEncoderPreset CompactEncoderPreset::load(const std::filesystem::path& file) {
    const std::string name = file.string();
    nlohmann::json json = readJsonFile(file);
    if (!json.is_object() || !json.contains("config") || !json["config"].is_object())
        throw ParseError(name, 0, "a compact encoder preset needs a \"config\" object (config.json keys)");
    CompactEncoderPreset preset;
    if (const auto description = json.find("description"); description != json.end()) {
        if (!description->is_string()) throw ParseError(name, 0, "\"description\" must be a string");
        preset.description = description->get<std::string>();
    }
    if (const auto vocabulary = json.find("vocabulary"); vocabulary != json.end()) {
        if (!vocabulary->is_object())
            throw ParseError(name, 0, "\"vocabulary\" must be an object {\"size\", \"min_frequency\", \"lower_case\"}");
        preset.vocabulary.vocabularySize =
            unsignedField(*vocabulary, "size", preset.vocabulary.vocabularySize, kMaxVocabulary, name, "vocabulary: ");
        if (preset.vocabulary.vocabularySize == 0) throw ParseError(name, 0, "vocabulary: \"size\" must be at least 1");
        preset.vocabulary.minFrequency = unsignedField(*vocabulary, "min_frequency", preset.vocabulary.minFrequency,
                                                       std::numeric_limits<std::uint32_t>::max(), name, "vocabulary: ");
        if (const auto lower = vocabulary->find("lower_case"); lower != vocabulary->end()) {
            if (!lower->is_boolean()) throw ParseError(name, 0, "vocabulary: \"lower_case\" must be true or false");
            preset.vocabulary.lowerCase = lower->get<bool>();
        }
    }
    preset.seed = unsignedField(json, "seed", preset.seed, std::numeric_limits<std::uint64_t>::max(), name, "");

    nlohmann::json config = json["config"];
    // The vocabulary is learned later; its largest size lets the config be checked now.
    config["vocab_size"] = preset.vocabulary.vocabularySize;
    if (json.contains("pooling")) config["linkscope"]["pooling"] = json["pooling"];
    preset.config = BertConfig::parse(config.dump(), name);  // validates types and consistency
    const BertConfig& c = preset.config;
    if (c.numHiddenLayers > kMaxLayers)
        throw ParseError(name, 0,
                         "config: \"num_hidden_layers\" " + std::to_string(c.numHiddenLayers) +
                             " is above this engine's bound of " + std::to_string(kMaxLayers));
    if (c.maxPositionEmbeddings > kMaxPositions)
        throw ParseError(name, 0,
                         "config: \"max_position_embeddings\" " + std::to_string(c.maxPositionEmbeddings) +
                             " is above this engine's bound of " + std::to_string(kMaxPositions));
    if (c.parameterCount() > kMaxParameters)
        throw ParseError(name, 0,
                         "config: these sizes make an encoder of " +
                             (c.parameterCount() == std::numeric_limits<std::size_t>::max()
                                  ? std::string("more parameters than can be counted")
                                  : std::to_string(c.parameterCount()) + " parameters") +
                             ", above the bound of " + std::to_string(kMaxParameters) +
                             " for an encoder trained from scratch (BERT-large has 335 M)");
    return preset;
}

}  // namespace linkscope::encoder
