// Finding the parts of a Hugging Face checkpoint folder. Safetensors weights are preferred, then
// pytorch_model.bin; for TensorFlow and Flax weights the error says how to convert them, since a
// user who downloaded one needs the next step, not just a refusal.
#include "encoder/checkpoint_files.h"
#include "encoder/sentencepiece_model.h"
#include "encoder/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <string_view>

#include "util/error.h"
#include "util/json_file.h"
#include "util/line_reader.h"

namespace linkscope::encoder {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

/// `text` as a single-quoted Python string literal.
std::string pythonLiteral(std::string_view text) {
    std::string literal = "'";
    for (const char c : text) {
        if (c == '\\' || c == '\'') literal += '\\';
        literal += c;
    }
    return literal + "'";
}

/// `text` made safe inside a double-quoted shell word.
std::string shellDoubleQuoted(std::string_view text) {
    std::string quoted;
    for (const char c : text) {
        if (c == '\\' || c == '"' || c == '$' || c == '`') quoted += '\\';
        quoted += c;
    }
    return quoted;
}

/// The one command that turns a checkpoint in another format into model.safetensors beside it.
/// `loadOption` is passed to from_pretrained (", from_tf=True" for TensorFlow weights).
std::string conversionCommand(const fs::path& directory, std::string_view loadOption) {
    const std::string dir = pythonLiteral(directory.string());
    const std::string script = "from transformers import AutoModel, AutoTokenizer; m=AutoModel.from_pretrained(" + dir +
                               std::string(loadOption) + "); m.save_pretrained(" + dir + ", safe_serialization=True)";
    return "python3 -c \"" + shellDoubleQuoted(script) + "\"";
}

std::vector<fs::path> shardsOfIndex(const fs::path& directory, const fs::path& index) {
    const std::string name = index.string();
    const Json root = readJsonFile(index);
    const auto map = root.is_object() ? root.find("weight_map") : root.end();
    if (map == root.end() || !map->is_object() || map->empty())
        throw ParseError(name, 0, "missing a non-empty \"weight_map\" object {\"tensor\": \"shard file\"}");

    std::set<std::string> shardNames;
    for (const auto& [tensor, shard] : map->items()) {
        if (!shard.is_string()) throw ParseError(name, 0, "weight_map entry \"" + tensor + "\" is not a file name");
        const fs::path shardPath(shard.get<std::string>());
        // A shard must sit in the checkpoint folder: an index that points elsewhere ("../x",
        // "/etc/x") is not one transformers would write, and following it would read any file.
        if (shardPath.empty() || shardPath.has_parent_path() || shardPath.is_absolute() || shardPath == ".." ||
            shardPath == ".")
            throw ParseError(name, 0,
                             "weight_map entry \"" + tensor + "\" names \"" + shardPath.string() +
                                 "\", which is not a file name inside the checkpoint folder");
        shardNames.insert(shardPath.string());
    }
    std::vector<fs::path> shards;
    for (const std::string& shard : shardNames) {
        const fs::path path = directory / shard;
        if (!isRegularFile(path))
            throw Error(directory.string() + ": shard \"" + shard + "\" listed in " + index.filename().string() +
                        " is missing");
        shards.push_back(path);
    }
    return shards;
}

}  // namespace

CheckpointFiles locateCheckpoint(const fs::path& directory) {
    const std::string dir = directory.string();
    std::error_code ec;
    if (!fs::exists(directory, ec)) throw Error(dir + ": checkpoint folder does not exist");
    if (!fs::is_directory(directory, ec))
        throw Error(dir +
                    ": not a folder (a checkpoint is a folder holding config.json, vocab.txt and model.safetensors)");
    // The commands shown to the user work from any working directory.
    const fs::path absolute = fs::absolute(directory, ec).lexically_normal();
    const fs::path shown = ec ? directory : absolute;

    // A run directory (train/run_directory.h: `train` and `pretrain` write one) stands for the
    // model it keeps: `--model RUN` works as `--model RUN/model`.
    if (!isRegularFile(directory / "config.json") && isRegularFile(directory / "run.json") &&
        isRegularFile(directory / "model" / "config.json"))
        return locateCheckpoint(directory / "model");

    CheckpointFiles files;
    files.directory = directory;
    files.config = directory / "config.json";
    files.vocabulary = directory / "vocab.txt";
    if (!isRegularFile(files.config))
        throw Error(dir + ": no config.json (the model's sizes); a Hugging Face checkpoint folder always has one");
    // XLM-R checkpoints hold their tokenizer's SentencePiece model instead of vocab.txt.
    if (!isRegularFile(files.vocabulary) && isRegularFile(directory / kSentencePieceFile))
        files.vocabulary = directory / kSentencePieceFile;
    // Without either, a WordPiece tokenizer.json (tokenizer_json.h); one that cannot be read is
    // named in the refusal, which still shows how transformers writes vocab.txt.
    std::string unreadJson;
    if (const fs::path jsonFile = directory / kTokenizerJsonFile;
        !isRegularFile(files.vocabulary) && isRegularFile(jsonFile)) {
        try {
            readTokenizerJson(jsonFile);
            files.vocabulary = jsonFile;
        } catch (const Error& e) {
            unreadJson = std::string("tokenizer.json is not read (") + e.what() + "); ";
        }
    }
    if (!isRegularFile(files.vocabulary))
        throw Error(dir + ": " + unreadJson +
                    "no vocab.txt (the WordPiece vocabulary). If the checkpoint has only tokenizer.json, write "
                    "vocab.txt with: python3 -c \"" +
                    shellDoubleQuoted("from transformers import AutoTokenizer; AutoTokenizer.from_pretrained(" +
                                      pythonLiteral(shown.string()) + ").save_pretrained(" +
                                      pythonLiteral(shown.string()) + ")") +
                    "\"");

    if (const auto single = directory / "model.safetensors"; isRegularFile(single)) {
        files.weights.push_back(single);
        return files;
    }
    if (const auto index = directory / "model.safetensors.index.json"; isRegularFile(index)) {
        files.weights = shardsOfIndex(directory, index);
        return files;
    }
    // pytorch_model.bin is a pickle: it is read by the restricted unpickler (torch_checkpoint.h),
    // which resolves only the names that rebuild tensors and runs nothing.
    if (const auto single = directory / "pytorch_model.bin"; isRegularFile(single)) {
        files.weights.push_back(single);
        return files;
    }
    if (const auto index = directory / "pytorch_model.bin.index.json"; isRegularFile(index)) {
        files.weights = shardsOfIndex(directory, index);
        return files;
    }
    if (isRegularFile(directory / "tf_model.h5"))
        throw Error(dir +
                    ": the weights are in tf_model.h5 (TensorFlow), which Linkscope does not read. Convert "
                    "them once to model.safetensors (needs transformers, torch and TensorFlow):\n  " +
                    conversionCommand(shown, ", from_tf=True"));
    if (isRegularFile(directory / "flax_model.msgpack"))
        throw Error(dir +
                    ": the weights are in flax_model.msgpack (Flax), which Linkscope does not read. Convert "
                    "them once to model.safetensors (needs transformers, torch and Flax):\n  " +
                    conversionCommand(shown, ", from_flax=True"));
    throw Error(dir +
                ": no model weights: expected model.safetensors (or model.safetensors.index.json and its "
                "shards) or pytorch_model.bin (or pytorch_model.bin.index.json and its shards)");
}

bool isRegularFile(const std::filesystem::path& path) noexcept {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

}  // namespace linkscope::encoder
