// The BERT module: Hugging Face's modeling_bert.py (BertModel, eval mode) in LibTorch, with
// modeling_xlm_roberta.py's embeddings for XLM-R.
#include "encoder/bert_model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "util/error.h"

namespace linkscope::encoder {
namespace {

std::int64_t asInt(std::size_t value) { return static_cast<std::int64_t>(value); }

torch::nn::LayerNorm makeLayerNorm(const BertConfig& config) {
    return torch::nn::LayerNorm(torch::nn::LayerNormOptions({asInt(config.hiddenSize)}).eps(config.layerNormEps));
}

torch::nn::Linear makeLinear(std::size_t in, std::size_t out) {
    return torch::nn::Linear(torch::nn::LinearOptions(asInt(in), asInt(out)).bias(true));
}

/// Throws Error unless every id of `ids` indexes a table of `rows` rows: torch's own message
/// ("index out of range in self") names neither the table nor the id.
void checkIdRange(const torch::Tensor& ids, std::int64_t rows, const char* what) {
    if (ids.numel() == 0) return;
    const auto low = ids.min().item<std::int64_t>();
    const auto high = ids.max().item<std::int64_t>();
    if (low < 0 || high >= rows)
        throw Error(std::string(what) + " id " + std::to_string(low < 0 ? low : high) + " outside the table of " +
                    std::to_string(rows) + " rows");
}

}  // namespace

double lowestFinite(torch::ScalarType dtype) {
    switch (dtype) {
        case torch::kFloat:
            return std::numeric_limits<float>::lowest();
        case torch::kDouble:
            return std::numeric_limits<double>::lowest();
        case torch::kHalf:
            return -65504.0;  // largest finite half is 65504
        case torch::kBFloat16:
            return static_cast<double>(std::numeric_limits<c10::BFloat16>::lowest());
        default:
            throw Error("attention mask: not a floating dtype");
    }
}

torch::Tensor firstTokenPositions(const torch::Tensor& ids, const torch::Tensor& mask, std::int64_t tokenId) {
    const auto length = ids.size(1);
    const auto match = ids.eq(tokenId).logical_and(mask.ne(0));
    // Weights T, T-1, ..., 1 make the first match the largest whatever argmax does with ties.
    const auto weights = torch::arange(length, 0, -1, torch::TensorOptions().dtype(torch::kLong).device(ids.device()));
    const auto positions = (match.to(torch::kLong) * weights).argmax(1);
    return torch::where(match.any(1), positions, torch::full_like(positions, -1));
}

// ---- embeddings ------------------------------------------------------------------------------

torch::Tensor xlmRobertaPositionIds(const torch::Tensor& ids, std::int64_t paddingIdx) {
    const auto real = ids.ne(paddingIdx).to(torch::kLong);
    return torch::cumsum(real, 1) * real + paddingIdx;
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertConfig& config)
    : dropout_(config.hiddenDropoutProb),
      xlmRoberta_(config.architecture == Architecture::XlmRoberta),
      paddingIdx_(asInt(config.padTokenId)) {
    const auto hidden = asInt(config.hiddenSize);
    // XLM-R's position table has a padding row too (RobertaEmbeddings), which gets no gradient.
    auto positionOptions = torch::nn::EmbeddingOptions(asInt(config.maxPositionEmbeddings), hidden);
    if (xlmRoberta_) positionOptions.padding_idx(paddingIdx_);
    // padding_idx: the padding row gets no gradient, as in transformers' nn.Embedding.
    word_embeddings = register_module(
        "word_embeddings",
        torch::nn::Embedding(
            torch::nn::EmbeddingOptions(asInt(config.vocabSize), hidden).padding_idx(asInt(config.padTokenId))));
    position_embeddings = register_module("position_embeddings", torch::nn::Embedding(positionOptions));
    token_type_embeddings =
        register_module("token_type_embeddings",
                        torch::nn::Embedding(torch::nn::EmbeddingOptions(asInt(config.typeVocabSize), hidden)));
    LayerNorm = register_module("LayerNorm", makeLayerNorm(config));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor& ids, const torch::Tensor& typeIds) {
    const auto length = ids.size(1);
    const auto offset = xlmRoberta_ ? paddingIdx_ + 1 : 0;
    if (length + offset > position_embeddings->weight.size(0))
        throw Error("BERT: " + std::to_string(length) + " tokens exceed max_position_embeddings " +
                    std::to_string(position_embeddings->weight.size(0)) +
                    (xlmRoberta_ ? " less XLM-RoBERTa's offset " + std::to_string(offset) : std::string()));
    const auto longIds = ids.to(torch::kLong);
    const auto longTypes = typeIds.to(torch::kLong);
    checkIdRange(longIds, word_embeddings->weight.size(0), "BERT: token");
    checkIdRange(longTypes, token_type_embeddings->weight.size(0), "BERT: token type");
    // "absolute" position embeddings: positions 0..T-1 for every row, padding included; XLM-R's
    // count real tokens only.
    const auto positions =
        xlmRoberta_
            ? xlmRobertaPositionIds(longIds, paddingIdx_)
            : torch::arange(length, torch::TensorOptions().dtype(torch::kLong).device(ids.device())).unsqueeze(0);
    auto embedded = word_embeddings(longIds) + token_type_embeddings(longTypes) + position_embeddings(positions);
    embedded = LayerNorm(embedded);
    return torch::dropout(embedded, dropout_, is_training());
}

// ---- attention -------------------------------------------------------------------------------

BertSelfAttentionImpl::BertSelfAttentionImpl(const BertConfig& config)
    : heads_(asInt(config.numAttentionHeads)),
      headSize_(asInt(config.hiddenSize / config.numAttentionHeads)),
      dropout_(config.attentionProbsDropoutProb) {
    query = register_module("query", makeLinear(config.hiddenSize, config.hiddenSize));
    key = register_module("key", makeLinear(config.hiddenSize, config.hiddenSize));
    value = register_module("value", makeLinear(config.hiddenSize, config.hiddenSize));
}

torch::Tensor BertSelfAttentionImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additiveMask) {
    const auto batch = hidden.size(0);
    const auto length = hidden.size(1);
    // [B, T, H] -> [B, heads, T, head size]
    const auto split = [&](const torch::Tensor& x) {
        return x.view({batch, length, heads_, headSize_}).transpose(1, 2);
    };
    const auto q = split(query(hidden));
    const auto k = split(key(hidden));
    const auto v = split(value(hidden));
    auto scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(headSize_));
    scores = scores + additiveMask;
    auto probabilities = torch::softmax(scores, -1);
    probabilities = torch::dropout(probabilities, dropout_, is_training());
    return torch::matmul(probabilities, v).transpose(1, 2).contiguous().view({batch, length, heads_ * headSize_});
}

BertResidualOutputImpl::BertResidualOutputImpl(std::int64_t inputSize, const BertConfig& config)
    : dropout_(config.hiddenDropoutProb) {
    dense = register_module("dense", makeLinear(static_cast<std::size_t>(inputSize), config.hiddenSize));
    LayerNorm = register_module("LayerNorm", makeLayerNorm(config));
}

torch::Tensor BertResidualOutputImpl::forward(const torch::Tensor& input, const torch::Tensor& residual) {
    return LayerNorm(torch::dropout(dense(input), dropout_, is_training()) + residual);
}

BertAttentionImpl::BertAttentionImpl(const BertConfig& config) {
    self = register_module("self", BertSelfAttention(config));
    output = register_module("output", BertResidualOutput(asInt(config.hiddenSize), config));
}

torch::Tensor BertAttentionImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additiveMask) {
    return output(self(hidden, additiveMask), hidden);
}

BertIntermediateImpl::BertIntermediateImpl(const BertConfig& config) {
    dense = register_module("dense", makeLinear(config.hiddenSize, config.intermediateSize));
}

torch::Tensor BertIntermediateImpl::forward(const torch::Tensor& hidden) {
    return torch::gelu(dense(hidden));  // approximate "none": x * 0.5 * (1 + erf(x / sqrt 2))
}

BertLayerImpl::BertLayerImpl(const BertConfig& config) {
    attention = register_module("attention", BertAttention(config));
    intermediate = register_module("intermediate", BertIntermediate(config));
    output = register_module("output", BertResidualOutput(asInt(config.intermediateSize), config));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additiveMask) {
    const auto attended = attention(hidden, additiveMask);
    return output(intermediate(attended), attended);
}

BertLayerStackImpl::BertLayerStackImpl(const BertConfig& config) {
    layer = register_module("layer", torch::nn::ModuleList());
    for (std::size_t i = 0; i < config.numHiddenLayers; ++i) layer->push_back(BertLayer(config));
}

torch::Tensor BertLayerStackImpl::forward(torch::Tensor hidden, const torch::Tensor& additiveMask) {
    for (std::size_t i = 0; i < layer->size(); ++i)
        hidden = layer->ptr<BertLayerImpl>(i)->forward(hidden, additiveMask);
    return hidden;
}

// ---- the model -------------------------------------------------------------------------------

BertEncoderModel::BertEncoderModel(const BertConfig& config, bool withPooler) : config_(config) {
    config_.validate();
    embeddings = register_module("embeddings", BertEmbeddings(config_));
    encoder = register_module("encoder", BertLayerStack(config_));
    if (withPooler) {
        auto pooler = register_module("pooler", std::make_shared<torch::nn::Module>());
        pooler_dense_ = pooler->register_module("dense", makeLinear(config_.hiddenSize, config_.hiddenSize));
    }
    if (config_.projectionDim > 0) {
        auto projection = register_module("projection", std::make_shared<torch::nn::Module>());
        const auto norm = [&](std::size_t size) {
            return torch::nn::LayerNorm(
                torch::nn::LayerNormOptions({static_cast<std::int64_t>(size)}).eps(config_.layerNormEps));
        };
        if (config_.projectionHead == ProjectionHead::LayerNorm)
            projection_norm_in_ = projection->register_module("norm_in", norm(config_.hiddenSize));
        projection_dense_ = projection->register_module("dense", makeLinear(config_.hiddenSize, config_.projectionDim));
        if (config_.projectionHead == ProjectionHead::LayerNorm)
            projection_norm_out_ = projection->register_module("norm_out", norm(config_.projectionDim));
    }
}

torch::Tensor BertEncoderModel::forward(const torch::Tensor& ids, const torch::Tensor& mask,
                                        const torch::Tensor& typeIds) {
    if (ids.dim() != 2 || mask.sizes() != ids.sizes() || typeIds.sizes() != ids.sizes())
        throw Error("BERT: ids, attention mask and token types must be [batch, length] of the same shape");
    const auto hidden = embeddings(ids, typeIds);
    // transformers' get_extended_attention_mask: (1 - mask) * finfo(dtype).min, broadcast over
    // heads and query positions.
    const auto dtype = hidden.scalar_type();
    const auto additive = ((1.0 - mask.to(dtype)) * lowestFinite(dtype)).view({ids.size(0), 1, 1, ids.size(1)});
    return encoder(hidden, additive);
}

torch::Tensor BertEncoderModel::pool(const torch::Tensor& hidden, const torch::Tensor& mask, const torch::Tensor& ids,
                                     const PoolingSpec& spec) const {
    switch (spec.pooling) {
        case Pooling::Cls:
            return hidden.select(1, 0);
        case Pooling::Mean: {
            const auto weights = mask.to(hidden.scalar_type()).unsqueeze(-1);
            // clamp: a row of padding only (never produced by the tokenizer) gives 0, not NaN.
            return (hidden * weights).sum(1) / weights.sum(1).clamp_min(1.0);
        }
        case Pooling::Markers:
        case Pooling::StartEnd:
            break;
    }
    const auto rows = torch::arange(hidden.size(0), torch::TensorOptions().dtype(torch::kLong).device(hidden.device()));
    torch::Tensor sum;
    for (const auto markerId : {spec.firstMarkerId, spec.secondMarkerId}) {
        const auto positions = firstTokenPositions(ids, mask, markerId);
        const auto missing = positions.lt(0).nonzero();
        if (missing.size(0) > 0)
            throw Error("pooling " + std::string(poolingName(spec.pooling)) + ": row " +
                        std::to_string(missing[0][0].item<std::int64_t>()) + " of the batch lacks marker token id " +
                        std::to_string(markerId));
        const auto picked = hidden.index({rows, positions});
        sum = sum.defined() ? sum + picked : picked;
    }
    return sum / 2.0;
}

torch::Tensor BertEncoderModel::project(const torch::Tensor& pooled) {
    if (!hasProjection()) return pooled;
    if (projection_norm_in_.is_empty()) return projection_dense_(pooled);
    return projection_norm_out_(projection_dense_(projection_norm_in_(pooled)));
}

namespace {

/// For each row of a marked batch, the words between its two markers read alone:
/// [CLS] w_1 .. w_n [SEP], where [CLS] is the row's first token and [SEP] its last real one (the
/// tokenizer puts them there), padded with padId. Returns ids, attention mask and token types.
std::array<torch::Tensor, 3> markedWordsAlone(const torch::Tensor& ids, const torch::Tensor& mask,
                                              const PoolingSpec& spec, std::int64_t padId) {
    const auto cpuIds = ids.to(torch::kCPU, torch::kLong).contiguous();
    const auto cpuMask = mask.to(torch::kCPU, torch::kLong).contiguous();
    const auto idAt = cpuIds.accessor<std::int64_t, 2>();
    const auto maskAt = cpuMask.accessor<std::int64_t, 2>();
    const std::int64_t rows = cpuIds.size(0);
    const std::int64_t length = cpuIds.size(1);
    std::vector<std::vector<std::int64_t>> alone(static_cast<std::size_t>(rows));
    std::int64_t longest = 2;
    for (std::int64_t row = 0; row < rows; ++row) {
        std::int64_t real = 0;
        while (real < length && maskAt[row][real] != 0) ++real;
        std::int64_t first = -1;
        std::int64_t second = -1;
        for (std::int64_t t = 0; t < real; ++t) {
            if (first < 0 && idAt[row][t] == spec.firstMarkerId)
                first = t;
            else if (first >= 0 && idAt[row][t] == spec.secondMarkerId) {
                second = t;
                break;
            }
        }
        // Refused as pool() refuses it, which a context weight of 0 does not run.
        if (first < 0 || second < 0 || real < 2)
            throw Error("pooling " + std::string(poolingName(spec.pooling)) + " with the mention alone: row " +
                        std::to_string(row) + " of the batch lacks marker token id " +
                        std::to_string(first < 0 ? spec.firstMarkerId : spec.secondMarkerId));
        auto& tokens = alone[static_cast<std::size_t>(row)];
        tokens.push_back(idAt[row][0]);
        for (std::int64_t t = first + 1; t < second; ++t) tokens.push_back(idAt[row][t]);
        tokens.push_back(idAt[row][real - 1]);
        longest = std::max(longest, static_cast<std::int64_t>(tokens.size()));
    }
    auto aloneIds = torch::full({rows, longest}, padId, torch::kLong);
    auto aloneMask = torch::zeros({rows, longest}, torch::kLong);
    auto idsOut = aloneIds.accessor<std::int64_t, 2>();
    auto maskOut = aloneMask.accessor<std::int64_t, 2>();
    for (std::int64_t row = 0; row < rows; ++row) {
        const auto& tokens = alone[static_cast<std::size_t>(row)];
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            idsOut[row][static_cast<std::int64_t>(t)] = tokens[t];
            maskOut[row][static_cast<std::int64_t>(t)] = 1;
        }
    }
    const auto device = ids.device();
    return {aloneIds.to(device), aloneMask.to(device),
            torch::zeros({rows, longest}, torch::TensorOptions().dtype(torch::kLong).device(device))};
}

}  // namespace

torch::Tensor BertEncoderModel::embed(const torch::Tensor& ids, const torch::Tensor& mask, const torch::Tensor& typeIds,
                                      const PoolingSpec& spec, bool normalize) {
    const bool markerPooling = spec.pooling == Pooling::Markers || spec.pooling == Pooling::StartEnd;
    // The marker pooling's share; 1 without mentionAlone. A pass whose share is 0 is not run.
    const double context = config_.mentionAlone && markerPooling ? config_.mentionContextWeight : 1.0;
    torch::Tensor pooled;
    if (context > 0.0) pooled = pool(forward(ids, mask, typeIds), mask, ids, spec);
    if (context < 1.0) {
        // The marked words read alone, [CLS]-pooled as names are: a small encoder reads them
        // worse inside their sentence (docs/results.md), so the context refines the name's vector
        // instead of replacing it, weighing mentionContextWeight.
        const auto [aloneIds, aloneMask, aloneTypes] =
            markedWordsAlone(ids, mask, spec, static_cast<std::int64_t>(config_.padTokenId));
        const auto alone = forward(aloneIds, aloneMask, aloneTypes).select(1, 0);
        pooled = context > 0.0 ? pooled * context + alone * (1.0 - context) : alone;
    }
    auto vectors = project(pooled);
    if (normalize)
        vectors = torch::nn::functional::normalize(vectors, torch::nn::functional::NormalizeFuncOptions().p(2).dim(1));
    return vectors;
}

void BertEncoderModel::initialize(std::uint64_t seed) {
    torch::NoGradGuard noGrad;
    auto generator = at::detail::createCPUGenerator(seed);
    const double range = config_.initializerRange;
    // Drawn on the CPU with our own generator and copied, so that the values do not depend
    // on the device the model is on, nor on torch's global seed.
    const auto fillNormal = [&](torch::Tensor& parameter) {
        parameter.copy_(torch::empty(parameter.sizes(), torch::kFloat).normal_(0.0, range, generator));
    };
    for (auto& module : modules(/*include_self=*/false)) {
        if (auto* linear = module->as<torch::nn::Linear>()) {
            fillNormal(linear->weight);
            linear->bias.zero_();
        } else if (auto* embedding = module->as<torch::nn::Embedding>()) {
            fillNormal(embedding->weight);
            if (const auto padding = embedding->options.padding_idx(); padding && *padding < embedding->weight.size(0))
                embedding->weight[*padding].zero_();
        } else if (auto* norm = module->as<torch::nn::LayerNorm>()) {
            norm->weight.fill_(1.0);
            norm->bias.zero_();
        }
    }
    markWeightsChanged();
}

void BertEncoderModel::initializeProjection(std::uint64_t seed) {
    if (!hasProjection()) return;
    torch::NoGradGuard noGrad;
    auto generator = at::detail::createCPUGenerator(seed);
    projection_dense_->weight.copy_(torch::empty(projection_dense_->weight.sizes(), torch::kFloat)
                                        .normal_(0.0, config_.initializerRange, generator));
    projection_dense_->bias.zero_();
    for (auto* norm : {&projection_norm_in_, &projection_norm_out_})
        if (!norm->is_empty()) {
            (*norm)->weight.fill_(1.0);
            (*norm)->bias.zero_();
        }
    markWeightsChanged();
}

void BertEncoderModel::growWordEmbeddings(std::int64_t rows, std::uint64_t seed) {
    auto& table = embeddings->word_embeddings;
    const auto current = table->weight.size(0);
    if (rows <= current) return;
    torch::NoGradGuard noGrad;
    auto generator = at::detail::createCPUGenerator(seed);
    const auto added = torch::empty({rows - current, table->weight.size(1)}, torch::kFloat)
                           .normal_(0.0, config_.initializerRange, generator)
                           .to(table->weight.options());
    // set_data keeps the registered parameter (the same tensor object) with new storage.
    table->weight.set_data(torch::cat({table->weight, added}, 0));
    table->options.num_embeddings(rows);
    config_.vocabSize = static_cast<std::size_t>(rows);
    markWeightsChanged();
}

}  // namespace linkscope::encoder
