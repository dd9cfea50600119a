// TextEncoder: tokenizer + BertEncoderModel + device handling behind a torch-free interface.
#include "encoder/text_encoder.h"
#include "encoder/token_batch.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>

#include "encoder/bert_model.h"
#include "encoder/bert_weights.h"
#include "encoder/checkpoint_files.h"
#include "encoder/finite_vectors.h"
#include "encoder/sentencepiece_model.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

/// Where and in which dtype the model runs, derived from the options (validated).
struct Placement {
    torch::Device device{torch::kCPU};
    torch::ScalarType dtype = torch::kFloat;
};

Placement resolvePlacement(const EncoderOptions& options, const BertConfig& config) {
    if (options.batchSize == 0) throw Error("encoder: batch size must be at least 1");
    if (options.maxLength < 2) throw Error("encoder: max length must be at least 2 ([CLS] and [SEP])");
    if (options.maxLength > config.maxTokens())
        throw Error("encoder: max length " + std::to_string(options.maxLength) + " exceeds the model's " +
                    "max_position_embeddings " + std::to_string(config.maxPositionEmbeddings) +
                    (config.positionOffset() > 0
                         ? " less its position offset " + std::to_string(config.positionOffset())
                         : std::string()));
    Placement placement;
    const bool cuda = cudaAvailable();
    switch (options.device) {
        case DevicePreference::Cpu:
            break;
        case DevicePreference::Cuda:
            if (!cuda) throw Error("encoder: a CUDA device was asked for, but this LibTorch build has none available");
            placement.device = torch::Device(torch::kCUDA, 0);
            break;
        case DevicePreference::Auto:
            if (cuda) placement.device = torch::Device(torch::kCUDA, 0);
            break;
    }
    if (options.precision != Precision::Fp32) {
        if (!placement.device.is_cuda())
            throw Error(std::string("encoder: ") + (options.precision == Precision::Fp16 ? "fp16" : "bf16") +
                        " inference needs a CUDA device; on the CPU use fp32");
        placement.dtype = options.precision == Precision::Fp16 ? torch::kHalf : torch::kBFloat16;
    }
    return placement;
}

/// FNV-1a, 64 bits (offset basis 14695981039346656037, prime 1099511628211).
class Fnv1a64 {
public:
    void add(std::span<const std::byte> bytes) noexcept {
        for (const std::byte b : bytes) {
            hash_ ^= static_cast<std::uint64_t>(b);
            hash_ *= 1099511628211ULL;
        }
    }
    void add(std::string_view text) noexcept { add(std::as_bytes(std::span(text.data(), text.size()))); }
    /// Each field ends with a 0 byte, so that "ab"+"c" and "a"+"bc" differ.
    void field(std::string_view text) noexcept {
        add(text);
        add(std::string_view("\0", 1));
    }
    std::string hex() const {
        char text[17];
        std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_));
        return text;
    }

private:
    std::uint64_t hash_ = 14695981039346656037ULL;
};

/// Restores the module's train/eval mode on scope exit: encode() runs in eval mode even in
/// the middle of training (validation) and leaves the trainer's mode as it found it.
class EvalModeGuard {
public:
    // Writes the flag only when the model is training: encoders are kept in eval mode, so
    // concurrent encode() calls outside training touch no shared state.
    explicit EvalModeGuard(BertEncoderModel& model) : model_(model), wasTraining_(model.is_training()) {
        if (wasTraining_) model_.eval();
    }
    ~EvalModeGuard() {
        if (wasTraining_) model_.train();
    }
    EvalModeGuard(const EvalModeGuard&) = delete;
    EvalModeGuard& operator=(const EvalModeGuard&) = delete;

private:
    BertEncoderModel& model_;
    bool wasTraining_;
};

}  // namespace

struct TextEncoder::State {
    // Modules start in train mode; an encoder is for inference until a trainer says otherwise.
    State(std::shared_ptr<BertEncoderModel> m, BertTokenizer t) : model(std::move(m)), tokenizer(std::move(t)) {
        model->eval();
    }

    std::shared_ptr<BertEncoderModel> model;
    BertTokenizer tokenizer;
    EncoderOptions options;
    Placement placement;
    std::vector<std::string> skipped;
    std::filesystem::path source;            ///< the folder load() read; empty for create()
    std::uint64_t loadedWeightsVersion = 0;  ///< the model's weightsVersion() after load()

    /// The model as errors name it: its folder, and whether its weights changed since.
    std::string describe() const {
        if (source.empty()) return "the model created in this process (not loaded from a folder)";
        if (model->weightsVersion() != loadedWeightsVersion)
            return "the model loaded from " + source.string() + ", changed since (trained or given tokens)";
        return "the model in " + source.string();
    }

    mutable std::mutex fingerprintMutex;
    mutable std::optional<std::pair<std::uint64_t, std::string>> fingerprint;  // weights version, hash

    /// Validates and applies options, moving or casting the model when its placement changes.
    void apply(const EncoderOptions& wanted) {
        const auto next = resolvePlacement(wanted, model->config());
        if (next.device != placement.device || next.dtype != placement.dtype) model->to(next.device, next.dtype);
        placement = next;
        options = wanted;
    }

    PoolingSpec poolingSpec(std::optional<Pooling> pooling) const {
        return poolingSpecFor(tokenizer, pooling.value_or(options.pooling.value_or(model->config().pooling)));
    }
};

TextEncoder::TextEncoder(std::unique_ptr<State> state) : state_(std::move(state)) {}
TextEncoder::TextEncoder(TextEncoder&&) noexcept = default;
TextEncoder& TextEncoder::operator=(TextEncoder&&) noexcept = default;
TextEncoder::~TextEncoder() = default;

TextEncoder TextEncoder::load(const std::filesystem::path& directory, const EncoderOptions& options) {
    const auto files = locateCheckpoint(directory);
    auto config = BertConfig::load(files.config);
    auto tokenizer = BertTokenizer::fromDirectory(files.directory);
    const auto tensors = readCheckpointTensors(files.weights);
    // The model is allocated from config.json's sizes: a config that asks for more parameters
    // than the weights hold (a damaged or hostile vocab_size of 10^9) is refused before that
    // allocation, not after it. Equal counts are then checked tensor by tensor on assignment.
    std::size_t stored = 0;
    for (const auto& [name, entry] : tensors.parameters)
        if (!name.starts_with("pooler.")) stored += static_cast<std::size_t>(entry.tensor.numel());
    if (config.parameterCount() > stored)
        throw ParseError(files.config.string(), 0,
                         "describes " + std::to_string(config.parameterCount()) +
                             " encoder parameters but the weights (" + files.weights.front().filename().string() +
                             (files.weights.size() > 1 ? ", ..." : "") + ") hold " + std::to_string(stored) +
                             ": the config does not belong to these weights");
    auto model = std::make_shared<BertEncoderModel>(config, tensors.hasPooler());
    assignCheckpointTensors(*model, tensors, files.weights);
    // After the shapes are known to match config.json, whose sizes the bound is derived from.
    checkWeightMagnitudes(tensors, config);
    auto state = std::make_unique<State>(std::move(model), std::move(tokenizer));
    state->skipped = tensors.skipped;
    state->source = files.directory;
    state->loadedWeightsVersion = state->model->weightsVersion();
    // After the weights are checked against config.json (their errors name the tensor): what is
    // left is a tokenizer with more tokens than the table, named with both files.
    if (state->tokenizer.vocabularySize() > config.vocabSize)
        throw ParseError(
            files.config.string(), 0,
            "the tokenizer in " + files.directory.string() + " (vocab.txt, added and special tokens) has " +
                std::to_string(state->tokenizer.vocabularySize()) +
                " tokens but the word embedding table (vocab_size) only " + std::to_string(config.vocabSize) + " rows");
    state->apply(options);
    return TextEncoder(std::move(state));
}

TextEncoder TextEncoder::create(const BertConfig& config, BertTokenizer tokenizer, std::uint64_t seed,
                                const EncoderOptions& options) {
    auto sized = config;
    sized.vocabSize = tokenizer.vocabularySize();
    auto model = std::make_shared<BertEncoderModel>(sized, /*withPooler=*/false);
    model->initialize(seed);
    auto state = std::make_unique<State>(std::move(model), std::move(tokenizer));
    state->apply(options);
    return TextEncoder(std::move(state));
}

void TextEncoder::save(const std::filesystem::path& directory) const {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec) throw Error(directory.string() + ": cannot create the folder: " + ec.message());
    state_->model->config().save(directory / "config.json");
    saveCheckpointTensors(*state_->model, directory / "model.safetensors");
    state_->tokenizer.save(directory);
}

std::vector<std::int32_t> TextEncoder::addTokens(std::span<const std::string> tokens, std::uint64_t seed) {
    auto ids = state_->tokenizer.addTokens(tokens);
    state_->model->growWordEmbeddings(static_cast<std::int64_t>(state_->tokenizer.vocabularySize()), seed);
    state_->model->markWeightsChanged();  // the tokenizer is part of the fingerprint
    return ids;
}

void TextEncoder::addProjectionHead(std::size_t dimension, ProjectionHead head, std::uint64_t seed) {
    auto& old = *state_->model;
    if (old.hasProjection())
        throw Error("encoder: the model already has a projection head of " +
                    std::to_string(old.config().projectionDim) + " dimensions");
    if (dimension == 0) throw Error("encoder: a projection head needs at least one dimension");
    auto config = old.config();
    config.projectionDim = dimension;
    config.projectionHead = head;
    auto model = std::make_shared<BertEncoderModel>(config, old.hasPooler());
    {
        torch::NoGradGuard noGrad;
        const auto previous = old.named_parameters();
        for (auto& parameter : model->named_parameters())
            if (const auto* kept = previous.find(parameter.key()))
                parameter.value().copy_(kept->to(torch::kCPU, torch::kFloat));
        const auto previousBuffers = old.named_buffers();
        for (auto& buffer : model->named_buffers())
            if (const auto* kept = previousBuffers.find(buffer.key())) buffer.value().copy_(kept->to(torch::kCPU));
    }
    model->initializeProjection(seed);
    model->eval();
    state_->model = std::move(model);
    state_->placement = Placement{};  // the new module is on the CPU in fp32
    state_->apply(state_->options);
    state_->model->markWeightsChanged();
}

std::vector<float> TextEncoder::encode(std::span<const std::string> texts, const ProgressSink* progress) const {
    return encode(texts, EncodeRequest{}, progress);
}

std::vector<float> TextEncoder::encode(std::span<const std::string> texts, const EncodeRequest& request,
                                       const ProgressSink* progress) const {
    auto& model = *state_->model;
    const auto spec = state_->poolingSpec(request.pooling);
    const auto& tokenizer = state_->tokenizer;
    const std::size_t maxLength = request.maxLength.value_or(state_->options.maxLength);
    if (maxLength < 2 || maxLength > model.config().maxTokens())
        throw Error("encoder: max length " + std::to_string(maxLength) + " is outside 2.." +
                    std::to_string(model.config().maxTokens()));
    const bool normalize = request.normalize.value_or(state_->options.normalize);
    const std::vector<Encoding> encodings = tokenizeForPooling(tokenizer, texts, maxLength, spec);

    // Length bucketing: texts of similar length share a batch, so little is spent on padding.
    std::vector<std::size_t> order(texts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return encodings[a].ids.size() < encodings[b].ids.size(); });

    const std::size_t dim = dimension();
    std::vector<float> vectors(texts.size() * dim);
    const std::size_t batchSize = state_->options.batchSize;
    EvalModeGuard evalMode(model);
    c10::InferenceMode inference;
    for (std::size_t start = 0; start < order.size(); start += batchSize) {
        if (progress) progress->checkCancelled();
        const std::size_t count = std::min(batchSize, order.size() - start);
        const auto batch = std::span(order).subspan(start, count);
        const TokenBatch tokens = makeTokenBatch(encodings, batch, tokenizer.padId());
        const auto device = state_->placement.device;
        const auto output =
            model.embed(tokens.ids.to(device), tokens.mask.to(device), tokens.types.to(device), spec, normalize)
                .to(torch::kCPU, torch::kFloat)
                .contiguous();
        const float* data = output.data_ptr<float>();
        for (std::size_t row = 0; row < count; ++row)
            std::memcpy(vectors.data() + batch[row] * dim, data + row * dim, dim * sizeof(float));
        if (progress) (*progress)("Encoding", static_cast<double>(start + count) / static_cast<double>(order.size()));
    }
    // Every command's vectors leave the encoder here (encode, the dense index, evaluation,
    // validation, linking): a forward pass that overflowed is refused, naming the model.
    requireFiniteVectors(vectors, dim, state_->describe(), texts);
    return vectors;
}

std::vector<float> TextEncoder::tokenOutputs(const Encoding& encoding) const {
    const auto length = static_cast<std::int64_t>(encoding.ids.size());
    if (length == 0) throw Error("encoder: tokenOutputs of an empty encoding");
    if (!encoding.attentionMask.empty() && encoding.attentionMask.size() != encoding.ids.size())
        throw Error("encoder: the encoding's attention mask and ids differ in length");
    if (!encoding.typeIds.empty() && encoding.typeIds.size() != encoding.ids.size())
        throw Error("encoder: the encoding's token types and ids differ in length");
    std::vector<std::int64_t> ids(encoding.ids.begin(), encoding.ids.end());
    std::vector<std::int64_t> mask(encoding.ids.size(), 1), types(encoding.ids.size(), 0);
    std::copy(encoding.attentionMask.begin(), encoding.attentionMask.end(), mask.begin());
    std::copy(encoding.typeIds.begin(), encoding.typeIds.end(), types.begin());
    const auto device = state_->placement.device;
    const auto tensorOf = [&](const std::vector<std::int64_t>& v) {
        return torch::tensor(v, torch::kLong).reshape({1, length}).to(device);
    };
    auto& model = *state_->model;
    EvalModeGuard evalMode(model);
    c10::InferenceMode inference;
    const auto hidden =
        model.forward(tensorOf(ids), tensorOf(mask), tensorOf(types)).to(torch::kCPU, torch::kFloat).contiguous();
    const float* data = hidden.data_ptr<float>();
    std::vector<float> outputs(data, data + hidden.numel());
    requireFiniteVectors(outputs, model.config().hiddenSize, state_->describe());
    return outputs;
}

std::size_t TextEncoder::dimension() const noexcept {
    const auto& config = state_->model->config();
    return config.projectionDim > 0 ? config.projectionDim : config.hiddenSize;
}

Pooling TextEncoder::pooling() const noexcept {
    return state_->options.pooling.value_or(state_->model->config().pooling);
}
const EncoderOptions& TextEncoder::options() const noexcept { return state_->options; }
void TextEncoder::setOptions(const EncoderOptions& options) { state_->apply(options); }
const BertConfig& TextEncoder::config() const noexcept { return state_->model->config(); }
const BertTokenizer& TextEncoder::tokenizer() const noexcept { return state_->tokenizer; }
std::string TextEncoder::deviceName() const { return state_->placement.device.str(); }
std::vector<std::string> TextEncoder::skippedTensors() const { return state_->skipped; }
BertEncoderModel& TextEncoder::model() noexcept { return *state_->model; }
const BertEncoderModel& TextEncoder::model() const noexcept { return *state_->model; }

std::string TextEncoder::fingerprint() const {
    const auto& model = *state_->model;
    std::lock_guard lock(state_->fingerprintMutex);
    if (state_->fingerprint && state_->fingerprint->first == model.weightsVersion()) return state_->fingerprint->second;

    Fnv1a64 hash;
    // What decides the vectors: the architecture, pooling and head (not the dropout rates nor
    // keys transformers alone reads), the tokenizer, and every weight by name.
    const auto& c = model.config();
    for (const std::size_t size :
         {c.vocabSize, c.hiddenSize, c.numHiddenLayers, c.numAttentionHeads, c.intermediateSize,
          c.maxPositionEmbeddings, c.typeVocabSize, c.padTokenId, c.projectionDim})
        hash.field(std::to_string(size));
    char eps[32];
    std::snprintf(eps, sizeof eps, "%.17g", c.layerNormEps);
    hash.field(eps);
    hash.field(c.hiddenAct);
    hash.field(c.positionEmbeddingType);
    hash.field(poolingName(c.pooling));
    // Added only for other architectures, so that BERT fingerprints stay as they were.
    if (c.architecture != Architecture::Bert) hash.field(modelTypeName(c.architecture));
    // Added only when set, so that the fingerprints of models saved before the key existed stay.
    if (c.mentionAlone) hash.field("mention-alone");
    if (c.mentionAlone && c.mentionContextWeight != 0.5) {
        char weight[32];
        std::snprintf(weight, sizeof weight, "context %.17g", c.mentionContextWeight);
        hash.field(weight);
    }
    const auto& tokenizer = state_->tokenizer;
    for (const auto& token : tokenizer.vocabulary().tokens()) hash.field(token);
    for (const auto& [token, id] : tokenizer.config().addedTokens) hash.field(token + "\t" + std::to_string(id));
    hash.field(tokenizer.config().doLowerCase ? "lower" : "cased");
    hash.field(tokenizer.config().stripAccents ? (*tokenizer.config().stripAccents ? "strip" : "keep") : "default");
    hash.field(tokenizer.config().tokenizeChineseChars ? "cjk" : "no-cjk");
    if (const auto* sentencePiece = tokenizer.sentencePiece()) hash.field(sentencePiece->bytes());  // its scores

    std::map<std::string, torch::Tensor> byName;
    for (const auto& item : model.named_parameters()) byName.emplace(item.key(), item.value());
    torch::NoGradGuard noGrad;
    for (const auto& [name, parameter] : byName) {
        hash.field(name);
        for (const auto extent : parameter.sizes()) hash.field(std::to_string(extent));
        const auto values = parameter.detach().to(torch::kCPU, torch::kFloat).contiguous();
        hash.add({static_cast<const std::byte*>(values.data_ptr()), values.nbytes()});
    }
    state_->fingerprint.emplace(model.weightsVersion(), hash.hex());
    return state_->fingerprint->second;
}

bool cudaAvailable() noexcept {
    try {
        return torch::cuda::is_available();
    } catch (...) {
        return false;
    }
}

int computeThreads() noexcept { return at::get_num_threads(); }

}  // namespace linkscope::encoder
