#pragma once
// BERT weights from and to safetensors files: the Hugging Face name variants a checkpoint may
// use, their mapping onto BertEncoderModel's parameters, and the checks that make a bad
// checkpoint an error naming the file and the tensor instead of a silently wrong model.
// Internal: includes torch (through bert_model.h).
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "encoder/bert_model.h"

namespace linkscope::encoder {

/// What a stored tensor name is to this engine.
enum class StoredTensorKind {
    Parameter,        ///< a model parameter, under its canonical name
    IgnoredBuffer,    ///< "embeddings.position_ids" / "token_type_ids": constant buffers transformers may save
    PretrainingHead,  ///< "cls.*" (masked-LM / NSP heads of BertForPreTraining): skipped
};

struct StoredTensorName {
    std::string canonical;  ///< the BertModel name: "bert." removed, gamma/beta -> weight/bias
    StoredTensorKind kind = StoredTensorKind::Parameter;
};

/// Maps a name as stored in a checkpoint: strips the "bert." prefix (BertForMaskedLM and
/// BertForPreTraining checkpoints such as BioBERT and PubMedBERT) or "roberta." (XLM-R's
/// XLMRobertaForMaskedLM, whose "lm_head.*" is a pretraining head), renames TensorFlow-era
/// "gamma"/"beta" to "weight"/"bias", and classifies buffers and pretraining heads.
StoredTensorName mapStoredTensorName(std::string_view stored);

/// The float32 tensors of a checkpoint, by canonical name, with the file each came from.
struct CheckpointTensors {
    struct Entry {
        torch::Tensor tensor;        ///< CPU, float32
        std::filesystem::path file;  ///< for error messages
        std::string storedName;      ///< as written in the file
    };
    std::map<std::string, Entry> parameters;
    std::vector<std::string> skipped;  ///< stored names of the pretraining heads, in file order

    bool hasPooler() const { return parameters.contains("pooler.dense.weight"); }
};

/// Reads the weights files (one, or the shards of an index: *.safetensors as safetensors, any
/// other name as a torch.save file through torch_checkpoint.h) and converts F16 / BF16 to F32.
/// Throws ParseError naming the file and tensor for another dtype or a name found twice.
CheckpointTensors readCheckpointTensors(std::span<const std::filesystem::path> files);

/// The largest magnitude a weight of a model of this configuration may have: sqrt(FLT_MAX /
/// width), width the widest sum of its forward pass (hidden, intermediate or projection size).
/// See checkWeightMagnitudes() for why.
double weightMagnitudeBound(const BertConfig& config);

/// Throws ParseError naming the file and tensor when a tensor holds a value whose magnitude
/// exceeds weightMagnitudeBound(config): finite, but large enough for a forward pass to
/// overflow float32 into infinite and then NaN vectors.
void checkWeightMagnitudes(const CheckpointTensors& tensors, const BertConfig& config);

/// Copies the tensors into the model's parameters (on whatever device and dtype the model is).
/// Throws ParseError naming the file and tensor for a tensor the model does not have, a
/// parameter no file has, or a shape that differs from the configuration's.
void assignCheckpointTensors(BertEncoderModel& model, const CheckpointTensors& tensors,
                             std::span<const std::filesystem::path> files);

/// Writes every parameter as F32 under its Hugging Face name (no "bert." prefix; pooler and
/// projection head when the model has them), as BertModel.save_pretrained does, atomically.
void saveCheckpointTensors(const BertEncoderModel& model, const std::filesystem::path& file);

}  // namespace linkscope::encoder
