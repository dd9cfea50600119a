#pragma once
// config.json of a Hugging Face BERT or XLM-RoBERTa checkpoint: the architecture's sizes. Keys
// this engine does not use are kept and written back, so a saved model still loads in
// transformers.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace linkscope::encoder {

/// How a text's token outputs become one vector (see text_encoder.h).
enum class Pooling {
    Cls,       ///< the [CLS] output (BioSyn, SapBERT, kNN-BioEL)
    Mean,      ///< mean over non-padding tokens (Xu & Bethard)
    Markers,   ///< mean of the [S] and [E] marker outputs (BELHD)
    StartEnd,  ///< average of the [START] and [END] outputs (Le & Nguyen)
};
std::string_view poolingName(Pooling pooling) noexcept;  ///< "cls", "mean", "markers", "start-end"
std::optional<Pooling> parsePooling(std::string_view name) noexcept;

/// The projection head's form, when the model has one.
enum class ProjectionHead {
    Linear,     ///< one Linear hidden -> projectionDim
    LayerNorm,  ///< LayerNorm -> Linear -> LayerNorm (BELHD's code, sg-wbi/belhd model.py)
};
std::string_view projectionHeadName(ProjectionHead head) noexcept;  ///< "linear", "layernorm"
std::optional<ProjectionHead> parseProjectionHead(std::string_view name) noexcept;

/// The encoders this engine runs: one transformer stack, two embedding layers.
enum class Architecture {
    Bert,        ///< model_type "bert": positions 0.., token types
    XlmRoberta,  ///< model_type "xlm-roberta": positions from padding_idx + 1, one token type
};
std::string_view modelTypeName(Architecture architecture) noexcept;  ///< "bert", "xlm-roberta"

struct BertConfig {
    Architecture architecture = Architecture::Bert;
    std::size_t vocabSize = 30522;
    std::size_t hiddenSize = 768;
    std::size_t numHiddenLayers = 12;
    std::size_t numAttentionHeads = 12;
    std::size_t intermediateSize = 3072;
    std::size_t maxPositionEmbeddings = 512;
    std::size_t typeVocabSize = 2;
    std::size_t padTokenId = 0;
    double layerNormEps = 1e-12;
    std::string hiddenAct = "gelu";  ///< only "gelu" (exact, erf) is supported
    double hiddenDropoutProb = 0.1;
    double attentionProbsDropoutProb = 0.1;
    double initializerRange = 0.02;
    std::string positionEmbeddingType = "absolute";  ///< only "absolute" is supported

    // Linkscope's own keys, stored under "linkscope" in config.json (transformers ignores them).
    Pooling pooling = Pooling::Cls;                          ///< the pooling the model was trained with
    std::size_t projectionDim = 0;                           ///< > 0: a head hidden -> projectionDim (BELHD: 128)
    ProjectionHead projectionHead = ProjectionHead::Linear;  ///< its form (config.json without it: linear)
    /// With marker pooling (markers, start-end): the mention's vector is the mean of the marker
    /// pooling in context and the [CLS] vector of the marked words read alone. A deviation from
    /// BELHD and Le & Nguyen for small encoders (models/README.md, "mention_alone").
    bool mentionAlone = false;
    /// With mentionAlone: the marker pooling's weight in that mean, in [0, 1] (the words alone
    /// weigh 1 - it); 0.5 is the plain mean. config.json "mention_context_weight".
    double mentionContextWeight = 0.5;

    std::string extraJson = "{}";  ///< keys read but not interpreted, as a JSON object

    /// The first position id of a text: 0 for BERT; padding_idx + 1 for XLM-R, whose position
    /// ids count real tokens from there and give padding padding_idx (as fairseq did).
    std::size_t positionOffset() const noexcept;
    /// The most tokens a text may have, special tokens included: max_position_embeddings less
    /// the position offset (XLM-R's 514 positions hold 512 tokens).
    std::size_t maxTokens() const noexcept;

    /// Throws ParseError naming the file for invalid JSON, a missing required size, a wrong
    /// type, or a value this engine does not support (model_type other than "bert" and
    /// "xlm-roberta", an activation other than gelu, hidden size not divisible by the head
    /// count). Without "pad_token_id" an XLM-R config has transformers' default, 1.
    static BertConfig load(const std::filesystem::path& file);
    /// Same from JSON text; `source` names it in errors (a preset file holding a config object).
    static BertConfig parse(const std::string& text, const std::string& source);
    /// Writes config.json with model_type "bert" and architectures ["BertModel"] (XLM-R:
    /// "xlm-roberta", ["XLMRobertaModel"]), atomically.
    void save(const std::filesystem::path& file) const;
    /// Throws Error when the sizes are inconsistent (zero sizes, hidden % heads != 0).
    void validate() const;
    /// Number of parameters of the encoder (embeddings, layers, pooler excluded, head included).
    std::size_t parameterCount() const noexcept;
};

}  // namespace linkscope::encoder
