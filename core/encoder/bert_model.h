#pragma once
// The BERT encoder as a LibTorch module, Hugging Face's BertModel in eval mode exactly, and
// XLMRobertaModel on the same stack (only its embeddings' position ids differ). This
// header includes torch: only the encoder's own sources, the trainer and tests that need
// tensors include it (text_encoder.h is the torch-free interface).
//
// Submodules are registered under Hugging Face's names, so named_parameters() gives exactly
// the names of a BertModel state dict ("embeddings.word_embeddings.weight",
// "encoder.layer.0.attention.self.query.weight", ...) and weights map by name without a table.
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "encoder/bert_config.h"

namespace linkscope::encoder {

/// Word + absolute position + token type embeddings, LayerNorm, dropout. XLM-RoBERTa's
/// (RobertaEmbeddings): position ids count the real tokens of a row from padding_idx + 1 and
/// give padding tokens padding_idx; its single token type row is added as BERT's are.
class BertEmbeddingsImpl : public torch::nn::Module {
public:
    explicit BertEmbeddingsImpl(const BertConfig& config);
    torch::Tensor forward(const torch::Tensor& ids, const torch::Tensor& typeIds);

    torch::nn::Embedding word_embeddings{nullptr};
    torch::nn::Embedding position_embeddings{nullptr};
    torch::nn::Embedding token_type_embeddings{nullptr};
    torch::nn::LayerNorm LayerNorm{nullptr};  // NOLINT: Hugging Face's name

private:
    double dropout_;
    bool xlmRoberta_;
    std::int64_t paddingIdx_;
};
TORCH_MODULE(BertEmbeddings);

/// XLM-RoBERTa's position ids of ids [B, T] (transformers' create_position_ids_from_input_ids):
/// padding_idx + 1 + the count of non-padding tokens before, padding_idx at padding tokens.
torch::Tensor xlmRobertaPositionIds(const torch::Tensor& ids, std::int64_t paddingIdx);

/// Multi-head scaled dot-product self-attention ("attention.self").
class BertSelfAttentionImpl : public torch::nn::Module {
public:
    explicit BertSelfAttentionImpl(const BertConfig& config);
    /// additiveMask: [B, 1, 1, T], 0 for real tokens and the dtype's lowest value for padding.
    torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additiveMask);

    torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};

private:
    std::int64_t heads_;
    std::int64_t headSize_;
    double dropout_;
};
TORCH_MODULE(BertSelfAttention);

/// dense + dropout + residual + LayerNorm: both "attention.output" and a layer's "output".
class BertResidualOutputImpl : public torch::nn::Module {
public:
    BertResidualOutputImpl(std::int64_t inputSize, const BertConfig& config);
    torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& residual);

    torch::nn::Linear dense{nullptr};
    torch::nn::LayerNorm LayerNorm{nullptr};  // NOLINT: Hugging Face's name

private:
    double dropout_;
};
TORCH_MODULE(BertResidualOutput);

class BertAttentionImpl : public torch::nn::Module {
public:
    explicit BertAttentionImpl(const BertConfig& config);
    torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additiveMask);

    BertSelfAttention self{nullptr};
    BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertAttention);

/// dense + exact (erf) GELU.
class BertIntermediateImpl : public torch::nn::Module {
public:
    explicit BertIntermediateImpl(const BertConfig& config);
    torch::Tensor forward(const torch::Tensor& hidden);

    torch::nn::Linear dense{nullptr};
};
TORCH_MODULE(BertIntermediate);

class BertLayerImpl : public torch::nn::Module {
public:
    explicit BertLayerImpl(const BertConfig& config);
    torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additiveMask);

    BertAttention attention{nullptr};
    BertIntermediate intermediate{nullptr};
    BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertLayer);

/// Holds the ModuleList "layer", so that parameter names read "encoder.layer.{i}...".
class BertLayerStackImpl : public torch::nn::Module {
public:
    explicit BertLayerStackImpl(const BertConfig& config);
    torch::Tensor forward(torch::Tensor hidden, const torch::Tensor& additiveMask);

    torch::nn::ModuleList layer{nullptr};
};
TORCH_MODULE(BertLayerStack);

/// Token ids of the markers a pooling reads (Markers: [S] and [E]; StartEnd: [START], [END]).
struct PoolingSpec {
    Pooling pooling = Pooling::Cls;
    std::int64_t firstMarkerId = -1;   ///< [S] or [START]; unused for Cls and Mean
    std::int64_t secondMarkerId = -1;  ///< [E] or [END]
};

/// Hugging Face's BertModel (without its pooler in the forward pass) plus Linkscope's optional
/// projection head. Build it, load weights into named_parameters(), call forward().
class BertEncoderModel : public torch::nn::Module {
public:
    /// withPooler: register "pooler.dense" (never used in forward; kept so that a loaded
    /// checkpoint's pooler is saved again). The projection head exists iff config.projectionDim > 0.
    BertEncoderModel(const BertConfig& config, bool withPooler);

    /// Last hidden state [B, T, H] of ids [B, T] (any integer dtype), attention mask [B, T]
    /// (1 real, 0 padding, any dtype) and token type ids [B, T]. Throws Error when T exceeds
    /// the position table or an id is outside its embedding table.
    torch::Tensor forward(const torch::Tensor& ids, const torch::Tensor& mask, const torch::Tensor& typeIds);

    /// One vector per row of the hidden states [B, T, H] -> [B, H]. Throws Error naming the row
    /// when a marker the pooling needs is absent from a row (among its real tokens).
    torch::Tensor pool(const torch::Tensor& hidden, const torch::Tensor& mask, const torch::Tensor& ids,
                       const PoolingSpec& spec) const;
    /// The projection head when there is one, else the input unchanged.
    torch::Tensor project(const torch::Tensor& pooled);
    /// forward + pool + project, and L2 normalization when asked: the vectors the encoder gives.
    torch::Tensor embed(const torch::Tensor& ids, const torch::Tensor& mask, const torch::Tensor& typeIds,
                        const PoolingSpec& spec, bool normalize);

    /// BERT's initialisation, as transformers' _init_weights does it: Linear and Embedding
    /// weights normal(0, config.initializerRange), biases 0, LayerNorm 1 and 0, and the padding
    /// row of the word embeddings 0. Deterministic for a seed (own generator, no global state).
    void initialize(std::uint64_t seed);
    /// Appends rows normal(0, initializerRange) (seeded) to the word embedding table until it
    /// has `rows` rows; existing rows are kept. No-op when it already has as many.
    void growWordEmbeddings(std::int64_t rows, std::uint64_t seed);

    const BertConfig& config() const noexcept { return config_; }
    /// The pooling saved in config.json ("linkscope" key): the trainer sets its method's.
    void setPooling(Pooling pooling) noexcept { config_.pooling = pooling; }
    /// Saved in config.json too: marker pooling averaged with the marked words read alone, the
    /// pooling weighing contextWeight (BertConfig::mentionAlone, mentionContextWeight); the
    /// trainer sets its schedule's. contextWeight is clamped to [0, 1].
    void setMentionAlone(bool on, double contextWeight = 0.5) noexcept {
        config_.mentionAlone = on;
        config_.mentionContextWeight = std::clamp(contextWeight, 0.0, 1.0);
        markWeightsChanged();  // the vectors change: a cached fingerprint must be recomputed
    }
    bool hasPooler() const noexcept { return !pooler_dense_.is_empty(); }
    bool hasProjection() const noexcept { return !projection_dense_.is_empty(); }
    /// BERT's initialisation of the projection head alone (a head added to a pretrained model).
    void initializeProjection(std::uint64_t seed);
    torch::nn::Embedding& wordEmbeddings() noexcept { return embeddings->word_embeddings; }

    /// A counter bumped by markWeightsChanged(): whoever changes the weights (the trainer,
    /// addTokens) calls it so that cached fingerprints are recomputed.
    std::uint64_t weightsVersion() const noexcept { return weightsVersion_; }
    void markWeightsChanged() noexcept { ++weightsVersion_; }

    BertEmbeddings embeddings{nullptr};
    BertLayerStack encoder{nullptr};

private:
    BertConfig config_;
    // "pooler.dense" and "projection.dense": each Linear inside a plain container module named
    // as Hugging Face's checkpoint (and our saved one) names it.
    torch::nn::Linear pooler_dense_{nullptr};
    torch::nn::Linear projection_dense_{nullptr};
    // BELHD's head: "projection.norm_in" before the Linear, "projection.norm_out" after it.
    torch::nn::LayerNorm projection_norm_in_{nullptr};
    torch::nn::LayerNorm projection_norm_out_{nullptr};
    std::uint64_t weightsVersion_ = 0;
};

/// The lowest finite value of a floating dtype (torch.finfo(dtype).min), which Hugging Face
/// adds to the attention scores of padding positions.
double lowestFinite(torch::ScalarType dtype);

/// The position, in each row of ids [B, T], of the first real token equal to tokenId, or -1.
torch::Tensor firstTokenPositions(const torch::Tensor& ids, const torch::Tensor& mask, std::int64_t tokenId);

}  // namespace linkscope::encoder
