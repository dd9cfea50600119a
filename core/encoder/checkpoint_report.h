#pragma once
// What a checkpoint folder holds and what loading it would use, found without LibTorch and
// without a forward pass: config.json, the tokenizer's files, each weights file's tensor list
// (safetensors header, or the pickle's tensors through the restricted unpickler) and BioSyn's
// extra files. `linkscope-cli model check` prints it; the GUI shows it where a training start is
// chosen. Each weights file is read once, one at a time, so that a file the loader would refuse
// (truncated, a refused pickle global, a storage past the end) is refused here too.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::encoder {

/// One weights file (model.safetensors, pytorch_model.bin or a shard of either).
struct WeightsFileReport {
    std::filesystem::path file;
    std::string format;  ///< "safetensors", "torch zip (.bin)", "torch legacy (.bin)"
    std::size_t tensors = 0;
    std::uint64_t parameters = 0;               ///< elements of all its tensors
    std::map<std::string, std::size_t> dtypes;  ///< dtype name ("F32") -> tensors of it
};

struct CheckpointReport {
    std::filesystem::path directory;  ///< the folder checked (a run folder's model folder for a run)
    /// Why the folder cannot be loaded, each naming its file; empty: it loads.
    std::vector<std::string> errors;
    /// Things that load but are probably not what the user wants (a cased vocabulary that will
    /// be lower-cased, a tokenizer larger than the embedding table).
    std::vector<std::string> warnings;
    /// What loading does that the user may not expect (BioSyn's vectorizer refit, files left out).
    std::vector<std::string> notes;

    // config.json
    std::string modelType;  ///< "bert", "xlm-roberta"; empty when config.json was not read
    std::size_t hiddenSize = 0, layers = 0, heads = 0, vocabSize = 0, maxPositionEmbeddings = 0;
    std::size_t maxTokens = 0;  ///< tokens per text the model takes, special tokens included
    std::string pooling;        ///< "cls", "mean", "markers", "start-end"
    std::size_t projectionDim = 0;
    std::string projectionHead;           ///< "linear", "layernorm"; empty without a head
    std::uint64_t encoderParameters = 0;  ///< what config.json's sizes give (the encoder loaded)

    // The tokenizer.
    std::string tokenizerKind;            ///< "WordPiece", "SentencePiece Unigram"
    std::filesystem::path tokenizerFile;  ///< vocab.txt, tokenizer.json or sentencepiece.bpe.model
    std::size_t tokenizerIds = 0;         ///< vocabulary plus added tokens
    std::size_t tokenizerMaxLength = 0;   ///< model_max_length
    std::optional<bool> lowerCase;
    std::string casingSource;  ///< "tokenizer_config.json", "tokenizer.json", "transformers' default", ...

    // The weights.
    std::string weightsLayout;  ///< "model.safetensors", "pytorch_model.bin.index.json (2 shards)", ...
    std::string weightsChoice;  ///< why these files are the ones used
    std::vector<WeightsFileReport> weights;
    std::vector<std::filesystem::path> unusedWeights;  ///< weights present but not read
    std::uint64_t storedParameters = 0;                ///< elements of all weights tensors
    std::uint64_t headParameters = 0;                  ///< of them, a pretraining head's (cls.*, lm_head.*), not loaded

    // BioSyn's released folders.
    std::optional<float> sparseWeight;  ///< sparse_weight.pt: the hybrid lambda
    std::filesystem::path sparseWeightFile;
    std::filesystem::path sparseEncoderFile;  ///< sparse_encoder.pk, never unpickled

    bool loadable() const noexcept { return errors.empty(); }
};

/// Checks a checkpoint folder or a run folder. Never throws for what the folder holds: every
/// problem becomes an error or a warning of the report.
CheckpointReport checkCheckpoint(const std::filesystem::path& directory);

/// The report as text for a terminal: one "name: value" line per fact, then "warning: " and
/// "error: " lines. (checkpoint_report_text.cpp)
std::string reportText(const CheckpointReport& report);
/// The report as one JSON object (checkpoint_report_text.cpp).
std::string reportJson(const CheckpointReport& report);

}  // namespace linkscope::encoder
