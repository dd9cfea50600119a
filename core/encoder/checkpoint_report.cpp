// Gathering a checkpoint report: each part read by the reader loading uses, each failure kept as
// an error naming its file, and the checks loading makes across files (tokenizer against the
// embedding table, config.json against the weights) made here from the tensor lists alone.
#include "encoder/checkpoint_report.h"

#include <functional>
#include <sstream>
#include <string_view>

#include "encoder/bert_config.h"
#include "encoder/bert_tokenizer.h"
#include "encoder/biosyn_folder.h"
#include "encoder/checkpoint_files.h"
#include "encoder/safetensors.h"
#include "encoder/sentencepiece_model.h"
#include "encoder/tokenizer_casing.h"
#include "encoder/tokenizer_json.h"
#include "encoder/torch_checkpoint.h"
#include "retrieval/tfidf_settings.h"
#include "util/allocation_guard.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

namespace fs = std::filesystem;

/// Runs one part of the check; a failure becomes an error of the report. False on failure.
bool attempt(CheckpointReport& report, const std::function<void()>& part) {
    try {
        part();
        return true;
    } catch (const std::bad_alloc&) {
        report.errors.push_back("out of memory while reading the folder");
    } catch (const std::exception& e) {
        report.errors.emplace_back(e.what());
    }
    return false;
}

/// How loading treats a stored tensor (as bert_weights.cpp maps names): a pretraining head is
/// skipped, constant buffers and the pooler are not encoder parameters.
enum class TensorUse { Encoder, Head, Other };

TensorUse useOf(std::string_view name) {
    for (const std::string_view prefix : {"bert.", "roberta."})
        if (name.starts_with(prefix)) {
            name.remove_prefix(prefix.size());
            break;
        }
    if (name.starts_with("cls.") || name.starts_with("lm_head.")) return TensorUse::Head;
    if (name == "embeddings.position_ids" || name == "embeddings.token_type_ids" || name.starts_with("pooler."))
        return TensorUse::Other;
    return TensorUse::Encoder;
}

void readConfig(CheckpointReport& report, const fs::path& file) {
    const BertConfig config = BertConfig::load(file);
    report.modelType = std::string(modelTypeName(config.architecture));
    report.hiddenSize = config.hiddenSize;
    report.layers = config.numHiddenLayers;
    report.heads = config.numAttentionHeads;
    report.vocabSize = config.vocabSize;
    report.maxPositionEmbeddings = config.maxPositionEmbeddings;
    report.maxTokens = config.maxTokens();
    report.pooling = std::string(poolingName(config.pooling));
    report.projectionDim = config.projectionDim;
    if (config.projectionDim > 0) report.projectionHead = std::string(projectionHeadName(config.projectionHead));
    report.encoderParameters = config.parameterCount();
}

void readTokenizer(CheckpointReport& report, const CheckpointFiles& files) {
    const BertTokenizer tokenizer = BertTokenizer::fromDirectory(files.directory);
    const std::string name = files.vocabulary.filename().string();
    report.tokenizerKind = name == kSentencePieceFile ? "SentencePiece Unigram" : "WordPiece";
    report.tokenizerFile = files.vocabulary;
    report.tokenizerIds = tokenizer.vocabularySize();
    report.tokenizerMaxLength = tokenizer.config().modelMaxLength;
    const CasingDecision casing = decideCasing(files.directory);
    report.lowerCase = casing.lowerCase;
    report.casingSource = casingSourceName(casing.source);
    report.warnings.insert(report.warnings.end(), casing.warnings.begin(), casing.warnings.end());
}

/// Which weights files locateCheckpoint chose, the others present, and why.
void describeWeightsChoice(CheckpointReport& report, const CheckpointFiles& files) {
    const fs::path& dir = files.directory;
    const std::string first = files.weights.front().filename().string();
    const bool safetensors = files.weights.front().extension() == ".safetensors";
    const bool sharded =
        isRegularFile(dir / (safetensors ? "model.safetensors.index.json" : "pytorch_model.bin.index.json")) &&
        !isRegularFile(dir / (safetensors ? "model.safetensors" : "pytorch_model.bin"));
    report.weightsLayout =
        sharded ? std::string(safetensors ? "model.safetensors.index.json" : "pytorch_model.bin.index.json") + " (" +
                      std::to_string(files.weights.size()) + " shards)"
                : first;
    for (const char* other : {"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                              "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack"}) {
        const fs::path path = dir / other;
        if (!isRegularFile(path) || report.weightsLayout.starts_with(other)) continue;
        report.unusedWeights.push_back(path);
    }
    if (safetensors) {
        report.weightsChoice = report.unusedWeights.empty()
                                   ? "safetensors: read without unpickling anything"
                                   : "safetensors is preferred where other weights are present too: it is read "
                                     "without unpickling anything";
    } else {
        report.weightsChoice =
            "pytorch_model.bin (no safetensors in the folder): a pickle, read by a restricted unpickler that "
            "rebuilds tensors only and runs no code";
    }
}

/// One weights file's tensors counted; `encoderStored` gains the elements loading assigns to
/// the encoder.
WeightsFileReport readWeightsFile(CheckpointReport& report, const fs::path& path, std::uint64_t& encoderStored) {
    WeightsFileReport file;
    file.file = path;
    const auto count = [&](std::string_view name, DType dtype, std::uint64_t elements) {
        ++file.tensors;
        file.parameters += elements;
        ++file.dtypes[std::string(dtypeName(dtype))];
        const TensorUse use = useOf(name);
        if (use == TensorUse::Head) report.headParameters += elements;
        if (use == TensorUse::Encoder) encoderStored += elements;
    };
    if (path.extension() == ".safetensors") {
        file.format = "safetensors";
        const auto read = readNamingFile(path, [&] { return SafetensorsFile::read(path); });
        for (const TensorInfo& tensor : read.tensors()) count(tensor.name, tensor.dtype, tensor.elementCount());
    } else {
        const auto read = readNamingFile(path, [&] { return TorchCheckpointFile::read(path); });
        file.format = read.format() == TorchCheckpointFile::Format::Zip ? "torch zip (.bin)" : "torch legacy (.bin)";
        for (const TorchTensor& tensor : read.tensors()) count(tensor.name, tensor.dtype, tensor.elementCount());
    }
    return file;
}

/// The checks loading makes across files, from the tensor lists: config.json's sizes against
/// the parameters stored, the tokenizer's ids against the embedding table.
void crossCheck(CheckpointReport& report, const CheckpointFiles& files, std::uint64_t encoderStored) {
    if (report.modelType.empty()) return;
    if (!report.weights.empty() && report.encoderParameters > encoderStored)
        report.errors.push_back(files.config.string() + ": describes " + std::to_string(report.encoderParameters) +
                                " encoder parameters but the weights hold " + std::to_string(encoderStored) +
                                ": the config does not belong to these weights");
    if (report.tokenizerIds > report.vocabSize)
        report.errors.push_back(files.config.string() + ": the tokenizer (" + report.tokenizerFile.filename().string() +
                                ", added and special tokens) has " + std::to_string(report.tokenizerIds) +
                                " tokens but the word embedding table (vocab_size) only " +
                                std::to_string(report.vocabSize) + " rows");
}

/// 3.2 as "3.2" (six significant digits, as a stream prints it).
std::string shortNumber(float value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

void readBioSyn(CheckpointReport& report, const fs::path& directory) {
    const BioSynFolder folder = readBioSynFolder(directory);
    report.sparseWeight = folder.sparseWeight;
    report.sparseWeightFile = folder.sparseWeightFile;
    report.sparseEncoderFile = folder.sparseEncoderFile;
    if (folder.sparseWeight)
        report.notes.push_back("hybrid lambda " + shortNumber(*folder.sparseWeight) + " from " +
                               folder.sparseWeightFile.string() +
                               " (BioSyn's learned sparse weight; --sparse-weight overrides it)");
    if (!folder.sparseEncoderFile.empty())
        report.notes.push_back(folder.sparseEncoderFile.string() +
                               " (a pickled scikit-learn vectorizer) is not loaded: unpickling it would run code. The "
                               "sparse index is refit from the dictionary with BioSyn's settings (" +
                               retrieval::TfidfSettings::bioSyn().describe() + ").");
}

}  // namespace

CheckpointReport checkCheckpoint(const fs::path& directory) {
    CheckpointReport report;
    report.directory = directory;
    CheckpointFiles files;
    if (!attempt(report, [&] { files = locateCheckpoint(directory); })) return report;
    report.directory = files.directory;
    attempt(report, [&] { readConfig(report, files.config); });
    attempt(report, [&] { readTokenizer(report, files); });
    describeWeightsChoice(report, files);
    std::uint64_t encoderStored = 0;
    bool weightsRead = true;
    for (const fs::path& path : files.weights)
        weightsRead =
            attempt(report, [&] { report.weights.push_back(readWeightsFile(report, path, encoderStored)); }) &&
            weightsRead;
    for (const WeightsFileReport& file : report.weights) report.storedParameters += file.parameters;
    // Cross-checks only over complete tensor lists: a shard that failed is reported already.
    if (weightsRead) crossCheck(report, files, encoderStored);
    attempt(report, [&] { readBioSyn(report, files.directory); });
    if (!report.unusedWeights.empty()) {
        std::string names;
        for (const fs::path& path : report.unusedWeights)
            names += (names.empty() ? "" : ", ") + path.filename().string();
        report.notes.push_back("not read: " + names + " (" + report.weightsLayout + " is used)");
    }
    if (report.headParameters > 0)
        report.notes.push_back(std::to_string(report.headParameters) +
                               " parameters of a pretraining head (cls.*, lm_head.*) are stored but not loaded");
    return report;
}

}  // namespace linkscope::encoder
