// Safetensors <-> BertEncoderModel: name variants, dtype conversion and the checks that turn a
// checkpoint that does not fit the configuration into an error naming file and tensor.
#include "encoder/bert_weights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "encoder/safetensors.h"
#include "encoder/torch_checkpoint.h"
#include "util/allocation_guard.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

constexpr std::string_view kBertPrefix = "bert.";
constexpr std::string_view kRobertaPrefix = "roberta.";  // XLMRobertaForMaskedLM and kin

std::string shapeText(c10::IntArrayRef shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

[[noreturn]] void tensorError(const std::filesystem::path& file, std::string_view tensor, const std::string& message) {
    throw ParseError(file.string(), 0, "tensor \"" + std::string(tensor) + "\": " + message);
}

/// One stored tensor, from either weights format.
struct StoredTensorBytes {
    std::string_view name;
    DType dtype;
    std::span<const std::int64_t> shape;
    std::span<const std::byte> bytes;
};

/// The tensors of one weights file: safetensors, or a torch.save file (pytorch_model.bin and
/// its shards) read by the restricted unpickler.
template <class Visit>
void forEachStoredTensor(const std::filesystem::path& path, Visit&& visit) {
    if (path.extension() == ".safetensors") {
        const auto file = readNamingFile(path, [&] { return SafetensorsFile::read(path); });
        for (const auto& info : file.tensors())
            visit(StoredTensorBytes{info.name, info.dtype, info.shape, file.bytes(info)});
    } else {
        const auto file = TorchCheckpointFile::read(path);
        for (const auto& tensor : file.tensors())
            visit(StoredTensorBytes{tensor.name, tensor.dtype, tensor.shape, tensor.bytes});
    }
}

/// A float32 CPU tensor from the stored bytes. The bytes are copied into torch's own
/// (aligned) storage first: the data section gives no alignment guarantee for F32 reads.
torch::Tensor toFloatTensor(const std::filesystem::path& path, const StoredTensorBytes& info) {
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
                path, info.name,
                "dtype " + std::string(dtypeName(info.dtype)) + " is not a weight dtype (F32, F16 or BF16 expected)");
    }
    const auto bytes = info.bytes;
    torch::Tensor tensor;
    try {
        tensor =
            torch::empty(c10::IntArrayRef(info.shape.data(), info.shape.size()), torch::TensorOptions().dtype(stored));
    } catch (const c10::Error& e) {
        // LibTorch reports an allocation it cannot make as c10::Error, not std::bad_alloc.
        tensorError(path, info.name, std::string("cannot be allocated: ") + e.what_without_backtrace());
    }
    if (bytes.size() != tensor.nbytes())
        tensorError(path, info.name, "byte count does not match its shape");  // the readers check this too
    if (!bytes.empty())
        std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());  // safetensors is little-endian, as we are
    return stored == torch::kFloat ? tensor : tensor.to(torch::kFloat);
}

/// The most terms a sum of the forward pass adds (see weightMagnitudeBound).
std::size_t forwardWidth(const BertConfig& config) {
    return std::max({config.hiddenSize, config.intermediateSize, config.projectionDim, std::size_t{1}});
}

std::filesystem::path fileForMissing(std::span<const std::filesystem::path> files) {
    // One file: it lacks the tensor. Shards: none of them has it; name the folder.
    if (files.size() == 1) return files.front();
    return files.empty() ? std::filesystem::path{} : files.front().parent_path();
}

}  // namespace

StoredTensorName mapStoredTensorName(std::string_view stored) {
    if (stored.starts_with(kBertPrefix))
        stored.remove_prefix(kBertPrefix.size());
    else if (stored.starts_with(kRobertaPrefix))
        stored.remove_prefix(kRobertaPrefix.size());
    std::string name(stored);
    if (name.starts_with("cls.") || name.starts_with("lm_head.")) return {name, StoredTensorKind::PretrainingHead};
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
        // One shard in memory at a time: a BERT-large shard is over a gigabyte. Its header's
        // sizes decide the allocations: one this machine cannot give names the file.
        forEachStoredTensor(path, [&](const StoredTensorBytes& info) {
            const auto mapped = mapStoredTensorName(info.name);
            if (mapped.kind == StoredTensorKind::PretrainingHead) {
                result.skipped.emplace_back(info.name);
                return;
            }
            if (mapped.kind == StoredTensorKind::IgnoredBuffer) return;
            if (const auto it = result.parameters.find(mapped.canonical); it != result.parameters.end())
                tensorError(
                    path, info.name,
                    "is the same parameter as \"" + it->second.storedName + "\" in " + it->second.file.string());
            auto tensor = readNamingFile(path, [&] { return toFloatTensor(path, info); });
            // NaN or infinite weights load without complaint and encode every text to NaN: every
            // similarity is then NaN and the ranking arbitrary. Refused here, naming the tensor.
            if (const auto bad = tensor.numel() - torch::isfinite(tensor).sum().item<std::int64_t>(); bad > 0)
                tensorError(path, info.name, "holds " + std::to_string(bad) + " NaN or infinite value(s)");
            result.parameters.emplace(mapped.canonical,
                                      CheckpointTensors::Entry{std::move(tensor), path, std::string(info.name)});
        });
    }
    return result;
}

// Every value of a forward pass is a sum over at most `width` terms: a Linear's row sums width
// products of a weight and an activation, LayerNorm sums the squares of its hidden inputs, and
// L2 normalisation the squares of a vector. The activations those sums read are weights in
// turn: the embedding rows reach the first LayerNorm as stored, and each LayerNorm's output is
// its weight times a standardised value (at most sqrt(hidden - 1)) plus its bias. So a weight
// of magnitude w meets activations of its own magnitude, and width products of two such values
// exceed FLT_MAX once w > sqrt(FLT_MAX / width): the forward pass gives infinities, then NaN
// (LayerNorm subtracts an infinite mean). For BERT-base (width 3072) the bound is about 3e17;
// trained weights are of the order of 1 (initialised with a standard deviation of 0.02), so no
// checkpoint that was ever trained comes near it. The bound is necessary, not sufficient:
// smaller weights can still compound over layers into an overflow, which TextEncoder's check
// of its outputs catches (finite_vectors.h), naming the model.
double weightMagnitudeBound(const BertConfig& config) {
    const std::size_t width = forwardWidth(config);
    return std::sqrt(static_cast<double>(std::numeric_limits<float>::max()) / static_cast<double>(width));
}

void checkWeightMagnitudes(const CheckpointTensors& tensors, const BertConfig& config) {
    const double bound = weightMagnitudeBound(config);
    for (const auto& [name, entry] : tensors.parameters) {
        if (entry.tensor.numel() == 0) continue;
        const auto magnitudes = entry.tensor.abs();
        const double largest = magnitudes.max().item<double>();
        if (largest <= bound) continue;
        const auto count = (magnitudes > bound).sum().item<std::int64_t>();
        char numbers[96];
        std::snprintf(numbers, sizeof numbers, "%.3g (largest %.3g)", bound, largest);
        tensorError(entry.file, entry.storedName,
                    "holds " + std::to_string(count) + " value(s) of magnitude above " + numbers +
                        ": a forward pass can overflow float32 with it (the bound is sqrt(FLT_MAX / " +
                        std::to_string(forwardWidth(config)) + "), " + std::to_string(forwardWidth(config)) +
                        " being the widest sum of this config.json's layers)");
    }
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
