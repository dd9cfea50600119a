#pragma once
// Where the parts of a Hugging Face checkpoint directory are, and the refusal of formats this
// engine does not read.
#include <filesystem>
#include <vector>

namespace linkscope::encoder {

struct CheckpointFiles {
    std::filesystem::path directory;
    std::filesystem::path config;                ///< config.json
    std::filesystem::path vocabulary;            ///< vocab.txt, or XLM-R's sentencepiece.bpe.model
    std::vector<std::filesystem::path> weights;  ///< model.safetensors, or the shards listed
                                                 ///< by model.safetensors.index.json; else
                                                 ///< pytorch_model.bin or its index's shards
};

/// Throws Error with an actionable message when: the directory does not exist; config.json or
/// vocab.txt is missing; only tf_model.h5 / flax_model.msgpack is present -- the message gives
/// the one-line Python conversion to model.safetensors; no weights at all. model.safetensors
/// (or its index) is preferred where pytorch_model.bin (or its index) is there too.
CheckpointFiles locateCheckpoint(const std::filesystem::path& directory);

/// True where `path` names a regular file (a link is followed); false where it names anything
/// else, nothing, or cannot be examined: the checkpoint and tokenizer readers' "is it there".
bool isRegularFile(const std::filesystem::path& path) noexcept;

}  // namespace linkscope::encoder
