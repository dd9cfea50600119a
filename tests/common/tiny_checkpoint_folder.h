#pragma once
// A tiny BERT checkpoint folder written file by file, as a user downloads one: config.json,
// vocab.txt and model.safetensors with transformers' tensor names (one layer of 8 dimensions,
// small deterministic weights, LayerNorm weights 1), loadable by the encoder without LibTorch
// being needed to write it. Tests add or remove files to make the folder they mean.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "encoder/safetensors.h"
#include "fixtures.h"

namespace linkscope::test {

struct TinyTensor {
    std::string name;
    std::vector<std::int64_t> shape;
};

inline constexpr std::int64_t kTinyHidden = 8, kTinyIntermediate = 16, kTinyPositions = 32, kTinyTypes = 2;

/// Special tokens, the letters a-z with their "##" continuations, and with `cased` A-Z too.
inline std::vector<std::string> tinyVocabulary(bool cased) {
    std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (char c = 'a'; c <= 'z'; ++c) tokens.emplace_back(1, c);
    for (char c = 'a'; c <= 'z'; ++c) tokens.push_back(std::string("##") + c);
    if (cased)
        for (char c = 'A'; c <= 'Z'; ++c) tokens.emplace_back(1, c);
    return tokens;
}

/// The encoder's tensors as transformers' BertModel names them (no prefix, no pooler).
inline std::vector<TinyTensor> tinyBertTensors(std::int64_t vocabSize) {
    const std::int64_t h = kTinyHidden, i = kTinyIntermediate;
    std::vector<TinyTensor> tensors = {{"embeddings.word_embeddings.weight", {vocabSize, h}},
                                       {"embeddings.position_embeddings.weight", {kTinyPositions, h}},
                                       {"embeddings.token_type_embeddings.weight", {kTinyTypes, h}},
                                       {"embeddings.LayerNorm.weight", {h}},
                                       {"embeddings.LayerNorm.bias", {h}}};
    const std::string layer = "encoder.layer.0.";
    for (const char* part :
         {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
        tensors.push_back({layer + part + ".weight", {h, h}});
        tensors.push_back({layer + part + ".bias", {h}});
    }
    tensors.push_back({layer + "attention.output.LayerNorm.weight", {h}});
    tensors.push_back({layer + "attention.output.LayerNorm.bias", {h}});
    tensors.push_back({layer + "intermediate.dense.weight", {i, h}});
    tensors.push_back({layer + "intermediate.dense.bias", {i}});
    tensors.push_back({layer + "output.dense.weight", {h, i}});
    tensors.push_back({layer + "output.dense.bias", {h}});
    tensors.push_back({layer + "output.LayerNorm.weight", {h}});
    tensors.push_back({layer + "output.LayerNorm.bias", {h}});
    return tensors;
}

inline std::uint64_t elementsOf(const std::vector<TinyTensor>& tensors) {
    std::uint64_t total = 0;
    for (const auto& tensor : tensors) {
        std::uint64_t n = 1;
        for (const auto d : tensor.shape) n *= static_cast<std::uint64_t>(d);
        total += n;
    }
    return total;
}

/// config.json for the tiny BERT with `vocabSize` rows.
inline std::string tinyBertConfig(std::int64_t vocabSize) {
    return nlohmann::json{{"model_type", "bert"},
                          {"architectures", {"BertModel"}},
                          {"vocab_size", vocabSize},
                          {"hidden_size", kTinyHidden},
                          {"num_hidden_layers", 1},
                          {"num_attention_heads", 2},
                          {"intermediate_size", kTinyIntermediate},
                          {"max_position_embeddings", kTinyPositions},
                          {"type_vocab_size", kTinyTypes},
                          {"hidden_act", "gelu"},
                          {"layer_norm_eps", 1e-12},
                          {"pad_token_id", 0}}
        .dump(2);
}

/// Writes config.json, vocab.txt and model.safetensors into `directory` (created).
inline void writeTinyCheckpoint(const std::filesystem::path& directory, bool casedVocabulary) {
    std::filesystem::create_directories(directory);
    const auto tokens = tinyVocabulary(casedVocabulary);
    std::string vocab;
    for (const auto& token : tokens) vocab += token + "\n";
    writeFile(directory / "vocab.txt", vocab);
    const auto vocabSize = static_cast<std::int64_t>(tokens.size());
    writeFile(directory / "config.json", tinyBertConfig(vocabSize));
    encoder::SafetensorsWriter writer;
    int seed = 0;
    for (const auto& tensor : tinyBertTensors(vocabSize)) {
        std::size_t n = 1;
        for (const auto d : tensor.shape) n *= static_cast<std::size_t>(d);
        std::vector<float> values(n);
        const bool normWeight = tensor.name.ends_with("LayerNorm.weight");
        for (std::size_t k = 0; k < n; ++k)
            values[k] = normWeight ? 1.0f : 0.05f * static_cast<float>(std::sin(0.7 * static_cast<double>(++seed)));
        writer.add(tensor.name, encoder::DType::F32, tensor.shape,
                   {reinterpret_cast<const std::byte*>(values.data()), values.size() * sizeof(float)});
    }
    writer.write(directory / "model.safetensors");
}

}  // namespace linkscope::test
