// config.json of a BERT checkpoint. The keys this engine interprets are checked for type and for
// values it can run; every other key (architectures aside) is carried through untouched so that
// a model saved by Linkscope still loads in transformers with its original settings.
#include "encoder/bert_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/json_object_reader.h"
#include "util/line_reader.h"

namespace linkscope::encoder {
namespace {

using Json = nlohmann::json;

constexpr std::array kPoolings{
    std::pair{Pooling::Cls, std::string_view("cls")},
    std::pair{Pooling::Mean, std::string_view("mean")},
    std::pair{Pooling::Markers, std::string_view("markers")},
    std::pair{Pooling::StartEnd, std::string_view("start-end")},
};

// Keys read into BertConfig's fields, or rewritten on save (model_type, architectures): none of
// them may also sit in extraJson, or save() would have to pick one of two values.
constexpr std::array<std::string_view, 17> kInterpretedKeys{
    "vocab_size",          "hidden_size",
    "num_hidden_layers",   "num_attention_heads",
    "intermediate_size",   "max_position_embeddings",
    "type_vocab_size",     "pad_token_id",
    "layer_norm_eps",      "hidden_act",
    "hidden_dropout_prob", "attention_probs_dropout_prob",
    "initializer_range",   "position_embedding_type",
    "model_type",          "architectures",
    "linkscope",
};

bool isInterpreted(std::string_view key) {
    for (const std::string_view interpreted : kInterpretedKeys)
        if (interpreted == key) return true;
    return false;
}

/// a * b + c with overflow reported as nullopt (a config with absurd sizes must not wrap around
/// to a plausible parameter count).
std::optional<std::size_t> mulAdd(std::size_t a, std::size_t b, std::size_t c) {
    std::size_t product = 0, sum = 0;
    if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) return std::nullopt;
    return sum;
}

/// The parameter count of parameterCount(), checked for overflow. Per BERT's modules:
///   embeddings  vocab*h + positions*h + types*h + LayerNorm 2h
///   each layer  Q, K, V, attention output: 4 (h*h + h); two LayerNorms: 2 * 2h;
///               intermediate h*i + i; output i*h + h
///   head        h*p + p when projectionDim p > 0 (the pooler h*h + h is not counted)
std::optional<std::size_t> countParameters(const BertConfig& c) {
    const std::size_t h = c.hiddenSize, i = c.intermediateSize;
    std::optional<std::size_t> total = mulAdd(c.vocabSize, h, 0);
    const auto add = [&](std::optional<std::size_t> term) {
        if (total && term)
            total = mulAdd(*total, 1, *term);
        else
            total = std::nullopt;
    };
    add(mulAdd(c.maxPositionEmbeddings, h, 0));
    add(mulAdd(c.typeVocabSize, h, 0));
    add(mulAdd(2, h, 0));
    std::optional<std::size_t> layer = mulAdd(h, h, h);
    if (layer) layer = mulAdd(*layer, 4, 0);
    for (const auto term : {mulAdd(4, h, 0), mulAdd(h, i, i), mulAdd(i, h, h)})
        layer = (layer && term) ? mulAdd(*layer, 1, *term) : std::nullopt;
    add(layer ? mulAdd(*layer, c.numHiddenLayers, 0) : std::nullopt);
    if (c.projectionDim > 0) add(mulAdd(h, c.projectionDim, c.projectionDim));
    // LayerNorm -> Linear -> LayerNorm: a weight and a bias of each norm.
    if (c.projectionDim > 0 && c.projectionHead == ProjectionHead::LayerNorm) add(mulAdd(2, h + c.projectionDim, 0));
    return total;
}

Json parseExtra(const std::string& extraJson) {
    Json extra;
    try {
        extra = Json::parse(extraJson);
    } catch (const Json::parse_error& e) {
        throw Error(std::string("BertConfig::extraJson is not valid JSON: ") + e.what());
    }
    if (!extra.is_object()) throw Error("BertConfig::extraJson must be a JSON object");
    for (const auto& [key, value] : extra.items())
        if (isInterpreted(key))
            throw Error("BertConfig::extraJson holds \"" + key + "\", which the config's own fields write");
    return extra;
}

}  // namespace

std::string_view modelTypeName(Architecture architecture) noexcept {
    return architecture == Architecture::XlmRoberta ? "xlm-roberta" : "bert";
}

std::string_view poolingName(Pooling pooling) noexcept {
    for (const auto& [value, name] : kPoolings)
        if (value == pooling) return name;
    return "?";
}

std::optional<Pooling> parsePooling(std::string_view name) noexcept {
    for (const auto& [value, spelled] : kPoolings)
        if (spelled == name) return value;
    return std::nullopt;
}

std::string_view projectionHeadName(ProjectionHead head) noexcept {
    return head == ProjectionHead::LayerNorm ? "layernorm" : "linear";
}

std::optional<ProjectionHead> parseProjectionHead(std::string_view name) noexcept {
    if (name == "linear") return ProjectionHead::Linear;
    if (name == "layernorm") return ProjectionHead::LayerNorm;
    return std::nullopt;
}

BertConfig BertConfig::load(const std::filesystem::path& file) {
    return parse(readTextFile(file), file.string());  // missing file, bad UTF-8: ParseError at its line
}

BertConfig BertConfig::parse(const std::string& text, const std::string& name) {
    const Json root = parseJson(text, name);
    if (!root.is_object()) throw ParseError(name, 0, "config.json must be a JSON object");

    BertConfig config;
    JsonObjectReader fields(root, name);
    std::string modelType = "bert";
    fields.string("model_type", modelType);
    if (modelType == "xlm-roberta") {
        config.architecture = Architecture::XlmRoberta;
        config.padTokenId = 1;  // XLMRobertaConfig's default
    } else if (modelType != "bert") {
        throw ParseError(name, 0,
                         "model_type \"" + modelType +
                             "\" is not supported: this engine runs BERT and XLM-RoBERTa encoders (model_type "
                             "\"bert\" or \"xlm-roberta\")");
    }
    const auto requiredSize = [&fields](const char* key, std::size_t& into) {
        fields.require(key);
        fields.size(key, into);
    };
    requiredSize("vocab_size", config.vocabSize);
    requiredSize("hidden_size", config.hiddenSize);
    requiredSize("num_hidden_layers", config.numHiddenLayers);
    requiredSize("num_attention_heads", config.numAttentionHeads);
    requiredSize("intermediate_size", config.intermediateSize);
    fields.size("max_position_embeddings", config.maxPositionEmbeddings);
    fields.size("type_vocab_size", config.typeVocabSize);
    fields.size("pad_token_id", config.padTokenId);
    fields.real("layer_norm_eps", config.layerNormEps);
    fields.string("hidden_act", config.hiddenAct);
    fields.real("hidden_dropout_prob", config.hiddenDropoutProb);
    fields.real("attention_probs_dropout_prob", config.attentionProbsDropoutProb);
    fields.real("initializer_range", config.initializerRange);
    fields.string("position_embedding_type", config.positionEmbeddingType);
    if (const Json* architectures = fields.member("architectures");
        architectures && !architectures->is_array() && !architectures->is_null())
        fields.fail("architectures", "must be a list of class names");

    if (auto ownFields = fields.object("linkscope", "{\"pooling\": ..., \"projection_dim\": ...}")) {
        for (const auto& [key, value] : root.at("linkscope").items())
            if (key != "pooling" && key != "projection_dim" && key != "projection_head" && key != "mention_alone" &&
                key != "mention_context_weight")
                throw ParseError(name, 0,
                                 "\"linkscope\" has the unknown key \"" + key +
                                     "\" (known: pooling, projection_dim, projection_head, mention_alone, "
                                     "mention_context_weight)");
        std::string pooling(poolingName(config.pooling));
        ownFields->string("pooling", pooling);
        const auto parsed = parsePooling(pooling);
        if (!parsed) ownFields->fail("pooling", "\"" + pooling + "\" is not one of cls, mean, markers, start-end");
        config.pooling = *parsed;
        ownFields->size("projection_dim", config.projectionDim);
        std::string head(projectionHeadName(config.projectionHead));
        ownFields->string("projection_head", head);
        const auto parsedHead = parseProjectionHead(head);
        if (!parsedHead) ownFields->fail("projection_head", "\"" + head + "\" is not one of linear, layernorm");
        config.projectionHead = *parsedHead;
        ownFields->boolean("mention_alone", config.mentionAlone);
        if (const Json* weight = ownFields->member("mention_context_weight")) {
            if (!weight->is_number() || !(weight->get<double>() >= 0.0 && weight->get<double>() <= 1.0))
                ownFields->fail("mention_context_weight", "must be a number from 0 to 1");
            config.mentionContextWeight = weight->get<double>();
        }
    }

    Json extra = Json::object();
    for (const auto& [key, value] : root.items())
        if (!isInterpreted(key)) extra[key] = value;
    config.extraJson = extra.dump();

    try {
        config.validate();
    } catch (const Error& e) {
        throw ParseError(name, 0, e.what());
    }
    return config;
}

void BertConfig::save(const std::filesystem::path& file) const {
    validate();
    Json root = parseExtra(extraJson);
    const bool xlmRoberta = architecture == Architecture::XlmRoberta;
    root["architectures"] = Json::array({xlmRoberta ? "XLMRobertaModel" : "BertModel"});
    root["model_type"] = std::string(modelTypeName(architecture));
    root["vocab_size"] = vocabSize;
    root["hidden_size"] = hiddenSize;
    root["num_hidden_layers"] = numHiddenLayers;
    root["num_attention_heads"] = numAttentionHeads;
    root["intermediate_size"] = intermediateSize;
    root["max_position_embeddings"] = maxPositionEmbeddings;
    root["type_vocab_size"] = typeVocabSize;
    root["pad_token_id"] = padTokenId;
    root["layer_norm_eps"] = layerNormEps;
    root["hidden_act"] = hiddenAct;
    root["hidden_dropout_prob"] = hiddenDropoutProb;
    root["attention_probs_dropout_prob"] = attentionProbsDropoutProb;
    root["initializer_range"] = initializerRange;
    root["position_embedding_type"] = positionEmbeddingType;
    root["linkscope"] = {{"pooling", std::string(poolingName(pooling))}, {"projection_dim", projectionDim}};
    // Written only when it is not the form older files imply, so their config.json stays as it was.
    if (projectionHead != ProjectionHead::Linear)
        root["linkscope"]["projection_head"] = std::string(projectionHeadName(projectionHead));
    if (mentionAlone) root["linkscope"]["mention_alone"] = true;
    if (mentionContextWeight != 0.5) root["linkscope"]["mention_context_weight"] = mentionContextWeight;

    AtomicFileWriter writer(file);
    writer.stream() << root.dump(2) << '\n';
    writer.commit();
}

void BertConfig::validate() const {
    const auto positive = [](std::size_t value, const char* key) {
        if (value == 0) throw Error(std::string("config: \"") + key + "\" must be at least 1");
    };
    positive(vocabSize, "vocab_size");
    positive(hiddenSize, "hidden_size");
    positive(numHiddenLayers, "num_hidden_layers");
    positive(numAttentionHeads, "num_attention_heads");
    positive(intermediateSize, "intermediate_size");
    positive(maxPositionEmbeddings, "max_position_embeddings");
    positive(typeVocabSize, "type_vocab_size");
    if (hiddenSize % numAttentionHeads != 0)
        throw Error("config: hidden_size " + std::to_string(hiddenSize) + " is not divisible by num_attention_heads " +
                    std::to_string(numAttentionHeads));
    if (padTokenId >= vocabSize)
        throw Error("config: pad_token_id " + std::to_string(padTokenId) + " is outside the vocabulary of " +
                    std::to_string(vocabSize));
    if (!std::isfinite(layerNormEps) || layerNormEps <= 0) throw Error("config: layer_norm_eps must be positive");
    const auto probability = [](double value, const char* key) {
        if (!(value >= 0 && value < 1)) throw Error(std::string("config: \"") + key + "\" must lie in [0, 1)");
    };
    probability(hiddenDropoutProb, "hidden_dropout_prob");
    probability(attentionProbsDropoutProb, "attention_probs_dropout_prob");
    if (!std::isfinite(initializerRange) || initializerRange < 0)
        throw Error("config: initializer_range must be a non-negative number");
    if (!(mentionContextWeight >= 0 && mentionContextWeight <= 1))
        throw Error("config: linkscope.mention_context_weight must lie in [0, 1]");
    if (hiddenAct != "gelu")
        throw Error("config: hidden_act \"" + hiddenAct +
                    "\" is not supported: this engine implements only \"gelu\" (the exact, erf-based GELU of "
                    "BERT, PubMedBERT, BioBERT and SapBERT)");
    if (positionEmbeddingType != "absolute")
        throw Error("config: position_embedding_type \"" + positionEmbeddingType +
                    "\" is not supported: this engine implements only \"absolute\"");
    if (!countParameters(*this)) throw Error("config: the sizes are so large that the parameter count overflows");
    if (architecture == Architecture::XlmRoberta && maxPositionEmbeddings < positionOffset() + 2)
        throw Error("config: max_position_embeddings " + std::to_string(maxPositionEmbeddings) +
                    " leaves no room for two tokens after XLM-RoBERTa's position offset (pad_token_id + 1 = " +
                    std::to_string(positionOffset()) + ")");
}

std::size_t BertConfig::positionOffset() const noexcept {
    return architecture == Architecture::XlmRoberta ? padTokenId + 1 : 0;
}

std::size_t BertConfig::maxTokens() const noexcept {
    return maxPositionEmbeddings > positionOffset() ? maxPositionEmbeddings - positionOffset() : 0;
}

std::size_t BertConfig::parameterCount() const noexcept {
    return countParameters(*this).value_or(std::numeric_limits<std::size_t>::max());
}

}  // namespace linkscope::encoder
