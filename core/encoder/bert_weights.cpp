// Safetensors <-> BertEncoderModel: name variants, dtype conversion and the checks that turn a
// checkpoint that does not fit the configuration into an error naming file and tensor.
#include "encoder/bert_weights.h"

#include <cstring>
#include <set>

#include "encoder/safetensors.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

constexpr std::string_view kBertPrefix = "bert.";

std::string shapeText(c10::IntArrayRef shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

[[noreturn]] void tensorError(const std::filesystem::path& file, std::string_view tensor, const std::string& message) {
    throw ParseError(file.string(), 0, "tensor \"" + std::string(tensor) + "\": " + message);
}

/// A float32 CPU tensor from the stored bytes. The bytes are copied into torch's own
/// (aligned) storage first: the data section gives no alignment guarantee for F32 reads.
torch::Tensor toFloatTensor(const SafetensorsFile& file, const TensorInfo& info) {
    torch::ScalarType stored{};
    switch (info.dtype) {
        case DType::F32:
            stored = torch::kFloat;
            break;
        case DType::F16:
            stored = torch::kHalf;
            break;  // fp16 checkpoints exist (e.g. exported ones)
        case DType::BF16:
            stored = torch::kBFloat16;
            break;
        default:
            tensorError(
                file.path(), info.name,
                "dtype " + std::string(dtypeName(info.dtype)) + " is not a weight dtype (F32, F16 or BF16 expected)");
    }
    const auto bytes = file.bytes(info);
    auto tensor = torch::empty(info.shape, torch::TensorOptions().dtype(stored));
    if (bytes.size() != tensor.nbytes())
        tensorError(file.path(), info.name, "byte count does not match its shape");  // the reader checks this too
    if (!bytes.empty())
        std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());  // safetensors is little-endian, as we are
    return stored == torch::kFloat ? tensor : tensor.to(torch::kFloat);
}

std::filesystem::path fileForMissing(std::span<const std::filesystem::path> files) {
    // One file: it lacks the tensor. Shards: none of them has it; name the folder.
    if (files.size() == 1) return files.front();
    return files.empty() ? std::filesystem::path{} : files.front().parent_path();
}

}  // namespace

StoredTensorName mapStoredTensorName(std::string_view stored) {
    std::string name(stored.starts_with(kBertPrefix) ? stored.substr(kBertPrefix.size()) : stored);
    if (name.starts_with("cls.")) return {name, StoredTensorKind::PretrainingHead};
    // Constant buffers older transformers versions saved (persistent=False since 4.31).
    if (name == "embeddings.position_ids" || name == "embeddings.token_type_ids")
        return {name, StoredTensorKind::IgnoredBuffer};
    // TensorFlow-converted checkpoints (BioBERT v1.0) name LayerNorm's parameters gamma and beta;
    // transformers renames them on load the same way.
    if (name.ends_with(".gamma"))
        name.replace(name.size() - 5, 5, "weight");
    else if (name.ends_with(".beta"))
        name.replace(name.size() - 4, 4, "bias");
    return {name, StoredTensorKind::Parameter};
}

CheckpointTensors readCheckpointTensors(std::span<const std::filesystem::path> files) {
    CheckpointTensors result;
    for (const auto& path : files) {
        // One shard in memory at a time: a BERT-large shard is over a gigabyte.
        const auto file = SafetensorsFile::read(path);
        for (const auto& info : file.tensors()) {
            const auto mapped = mapStoredTensorName(info.name);
            if (mapped.kind == StoredTensorKind::PretrainingHead) {
                result.skipped.push_back(info.name);
                continue;
            }
            if (mapped.kind == StoredTensorKind::IgnoredBuffer) continue;
            if (const auto it = result.parameters.find(mapped.canonical); it != result.parameters.end())
                tensorError(
                    path, info.name,
                    "is the same parameter as \"" + it->second.storedName + "\" in " + it->second.file.string());
            auto tensor = toFloatTensor(file, info);
            // NaN or infinite weights load without complaint and encode every text to NaN: every
            // similarity is then NaN and the ranking arbitrary. Refused here, naming the tensor.
            if (const auto bad = tensor.numel() - torch::isfinite(tensor).sum().item<std::int64_t>(); bad > 0)
                tensorError(path, info.name, "holds " + std::to_string(bad) + " NaN or infinite value(s)");
            result.parameters.emplace(mapped.canonical, CheckpointTensors::Entry{std::move(tensor), path, info.name});
        }
    }
    return result;
}

void assignCheckpointTensors(BertEncoderModel& model, const CheckpointTensors& tensors,
                             std::span<const std::filesystem::path> files) {
    torch::NoGradGuard noGrad;
    const auto parameters = model.named_parameters();
    for (const auto& [name, entry] : tensors.parameters)
        if (!parameters.contains(name))
            tensorError(entry.file, entry.storedName,
                        "is not a parameter of a BERT encoder with this config.json (a task head? a projection "
                        "head without \"projection_dim\"?)");
    for (const auto& item : parameters) {
        const auto found = tensors.parameters.find(item.key());
        if (found == tensors.parameters.end())
            tensorError(fileForMissing(files), item.key(), "missing (config.json expects it)");
        auto& parameter = item.value();
        const auto& stored = found->second.tensor;
        if (stored.sizes() != parameter.sizes())
            tensorError(
                found->second.file, found->second.storedName,
                "shape " + shapeText(stored.sizes()) + " does not match config.json's " + shapeText(parameter.sizes()));
        parameter.copy_(stored);
    }
    model.markWeightsChanged();
}

void saveCheckpointTensors(const BertEncoderModel& model, const std::filesystem::path& file) {
    SafetensorsWriter writer;
    for (const auto& item : model.named_parameters()) {
        const auto tensor = item.value().detach().to(torch::kCPU, torch::kFloat).contiguous();
        const auto* data = static_cast<const std::byte*>(tensor.data_ptr());
        writer.add(item.key(), DType::F32, tensor.sizes().vec(), {data, tensor.nbytes()});
    }
    writer.write(file);
}

}  // namespace linkscope::encoder
