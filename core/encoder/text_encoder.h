#pragma once
// A BERT encoder that turns texts into vectors: the model in LibTorch behind a torch-free
// interface (a torch include makes every translation unit that has it slow to compile, and
// the GUI and the CLI only need vectors). Loads Hugging Face checkpoint directories (SapBERT,
// PubMedBERT, BioBERT) and saves in the same layout.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "encoder/bert_config.h"
#include "encoder/bert_tokenizer.h"
#include "util/progress.h"

namespace linkscope::encoder {

enum class DevicePreference { Auto, Cpu, Cuda };  ///< Auto: CUDA when LibTorch has it
enum class Precision { Fp32, Fp16, Bf16 };        ///< half precisions on CUDA only

struct EncoderOptions {
    std::optional<Pooling> pooling;  ///< unset: the pooling in config.json ("linkscope" key)
    std::size_t maxLength = 25;      ///< tokens per text, [CLS]/[SEP] included (BioSyn: 25)
    std::size_t batchSize = 256;     ///< texts per forward pass
    DevicePreference device = DevicePreference::Auto;
    Precision precision = Precision::Fp32;  ///< Error when a half precision is asked on CPU
    bool normalize = false;                 ///< L2-normalize outputs (cosine scores as inner products)
};

/// Per-call changes to the encoder's options: a method encodes mentions and names, or entity
/// texts, with different lengths and poolings through one model (Le & Nguyen: [START]/[END]
/// pooling for mentions, [CLS] for entities).
struct EncodeRequest {
    std::optional<std::size_t> maxLength;
    std::optional<Pooling> pooling;
    std::optional<bool> normalize;
};

class BertEncoderModel;  // the LibTorch module (bert_model.h), for the trainer

class TextEncoder {
public:
    /// Loads config.json, the tokenizer files and model.safetensors (see locateCheckpoint()).
    /// Weights may carry the "bert." prefix or not; the pooler is optional; pretraining heads
    /// ("cls.*") are skipped and listed in skippedTensors(). Throws Error naming the file and
    /// tensor for a missing or unknown tensor, a wrong shape, an unsupported dtype, or a value
    /// that is NaN, infinite or too large for a forward pass (checkWeightMagnitudes).
    static TextEncoder load(const std::filesystem::path& directory, const EncoderOptions& options = {});
    /// A randomly initialised model (BERT's initialisation: normal(0, initializer_range),
    /// LayerNorm 1/0), deterministic for a seed: the compact encoder before training.
    static TextEncoder create(const BertConfig& config, BertTokenizer tokenizer, std::uint64_t seed,
                              const EncoderOptions& options = {});

    TextEncoder(TextEncoder&&) noexcept;
    TextEncoder& operator=(TextEncoder&&) noexcept;
    ~TextEncoder();

    /// Writes config.json, model.safetensors (F32, Hugging Face names without the "bert."
    /// prefix, as BertModel.save_pretrained writes them), and the tokenizer files, atomically
    /// per file, creating the directory.
    void save(const std::filesystem::path& directory) const;

    /// Adds marker tokens ([S], [E], [START], [END]) to the tokenizer and grows the word
    /// embedding table to cover them: new rows normal(0, initializer_range), deterministic for
    /// the seed; existing rows are kept and config().vocabSize follows. Returns the tokens' ids
    /// (tokens already known keep theirs). When the table already has rows past the tokenizer
    /// (vocab_size padded beyond vocab.txt), new ids that fall inside it use those rows as they are.
    std::vector<std::int32_t> addTokens(std::span<const std::string> tokens, std::uint64_t seed);
    /// Gives a model without a projection head one (a method that projects, such as BELHD,
    /// fine-tuning a pretrained encoder): BERT's initialisation of the head from the seed, every
    /// other weight kept, config() updated. Error when the model already has a head.
    void addProjectionHead(std::size_t dimension, ProjectionHead head, std::uint64_t seed);

    /// Vectors of the texts, row-major (texts.size() x dimension()), in the order given. Texts
    /// are batched by token length (length bucketing) and restored to their order. progress
    /// gets "Encoding" with the fraction done and may cancel (throws Cancelled). Throws Error
    /// naming the model's folder and the text when a vector is not finite or too long for its
    /// scores to stay finite (finite_vectors.h): the forward pass overflowed.
    std::vector<float> encode(std::span<const std::string> texts, const ProgressSink* progress = nullptr) const;
    /// The same with some options changed for this call only.
    std::vector<float> encode(std::span<const std::string> texts, const EncodeRequest& request,
                              const ProgressSink* progress = nullptr) const;
    /// Token-level outputs (last hidden state, length x hidden) of one text, for checks.
    std::vector<float> tokenOutputs(const Encoding& encoding) const;

    std::size_t dimension() const noexcept;  ///< projection size, or hidden size
    Pooling pooling() const noexcept;
    const EncoderOptions& options() const noexcept;
    void setOptions(const EncoderOptions& options);  ///< moves the model when the device changes
    const BertConfig& config() const noexcept;
    const BertTokenizer& tokenizer() const noexcept;
    std::string deviceName() const;  ///< "cpu", "cuda:0"
    std::vector<std::string> skippedTensors() const;
    /// A hash of the configuration and every weight: a saved vector index refuses to be used
    /// with vectors of another model.
    std::string fingerprint() const;

    /// The LibTorch module, for the trainer (include bert_model.h to use it).
    BertEncoderModel& model() noexcept;
    const BertEncoderModel& model() const noexcept;

private:
    struct State;
    explicit TextEncoder(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

/// True when LibTorch in this build can use a CUDA device.
bool cudaAvailable() noexcept;
/// Threads LibTorch uses for CPU inference (intra-op parallelism), for reports.
int computeThreads() noexcept;

}  // namespace linkscope::encoder
