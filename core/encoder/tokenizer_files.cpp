// A tokenizer's files in a Hugging Face checkpoint folder: vocab.txt, tokenizer_config.json,
// special_tokens_map.json and added_tokens.json, read and written as transformers does.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <system_error>

#include "encoder/bert_tokenizer.h"
#include "encoder/checkpoint_files.h"
#include "encoder/sentencepiece_model.h"
#include "encoder/tokenizer_json.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/line_reader.h"

namespace linkscope::encoder {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kVocabularyFile = "vocab.txt";
constexpr const char* kConfigFile = "tokenizer_config.json";
constexpr const char* kSpecialTokensFile = "special_tokens_map.json";
constexpr const char* kAddedTokensFile = "added_tokens.json";

// JSON files are read through LineReader too, which checks UTF-8 and names the bad line.
json readJsonObject(const fs::path& file) {
    const std::string content = readTextFile(file);
    if (content.find_first_not_of(" \t\n") == std::string::npos) throw ParseError(file.string(), 0, "empty JSON file");
    const json value = parseJson(content, file.string());
    if (!value.is_object())
        throw ParseError(file.string(), 0, std::string("expected a JSON object, got ") + value.type_name());
    return value;
}

/// Typed access to the members of one JSON object; a wrong type is a ParseError naming the
/// file and the key.
class JsonObject {
public:
    JsonObject(const fs::path& file, const json& object) : file_(file.string()), object_(object) {}

    const json* find(const std::string& key) const {
        const auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }
    [[noreturn]] void wrongType(const std::string& key, std::string_view expected, const json& got) const {
        throw ParseError(file_, 0,
                         "\"" + key + "\" must be " + std::string(expected) + ", got " + std::string(got.type_name()));
    }
    void readBool(const std::string& key, bool& target) const {
        if (const json* value = find(key)) {
            if (!value->is_boolean()) wrongType(key, "true or false", *value);
            target = value->get<bool>();
        }
    }
    void readOptionalBool(const std::string& key, std::optional<bool>& target) const {
        if (const json* value = find(key)) {
            if (value->is_null())
                target.reset();
            else if (value->is_boolean())
                target = value->get<bool>();
            else
                wrongType(key, "true, false or null", *value);
        }
    }
    // transformers writes a huge sentinel (int(1e30)) for "no limit"; it does not fit any
    // integer type, so nlohmann reads it as a double, which we clamp.
    void readLength(const std::string& key, std::size_t& target) const {
        const json* value = find(key);
        if (!value) return;
        if (value->is_number_unsigned()) {
            const auto n = value->get<std::uint64_t>();
            target = n > std::numeric_limits<std::size_t>::max() ? std::numeric_limits<std::size_t>::max()
                                                                 : static_cast<std::size_t>(n);
        } else if (value->is_number_float()) {
            const double d = value->get<double>();
            if (!std::isfinite(d) || d < 0) wrongType(key, "a non-negative number", *value);
            target =
                d >= 18446744073709551615.0 ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(d);
        } else if (value->is_number_integer()) {
            throw ParseError(file_, 0, "\"" + key + "\" must not be negative");
        } else {
            wrongType(key, "a number", *value);
        }
    }
    // A token is a string or an AddedToken object {"content": ...}.
    std::string tokenContent(const std::string& key, const json& value) const {
        if (value.is_string()) return value.get<std::string>();
        if (value.is_object()) {
            const auto content = value.find("content");
            if (content == value.end() || !content->is_string())
                throw ParseError(file_, 0, "\"" + key + "\" has no string \"content\"");
            return content->get<std::string>();
        }
        wrongType(key, "a string or an object with \"content\"", value);
    }
    void readToken(const std::string& key, std::string& target) const {
        if (const json* value = find(key); value && !value->is_null()) target = tokenContent(key, *value);
    }
    std::optional<std::vector<std::string>> readTokenList(const std::string& key) const {
        const json* value = find(key);
        if (!value || value->is_null()) return std::nullopt;
        if (!value->is_array()) wrongType(key, "a list", *value);
        std::vector<std::string> tokens;
        for (const auto& element : *value) tokens.push_back(tokenContent(key, element));
        return tokens;
    }
    std::int32_t tokenId(const std::string& what, const json& value) const {
        if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
            value.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max())
            throw ParseError(file_, 0, what + " must be a non-negative 32-bit integer id");
        return static_cast<std::int32_t>(value.get<std::int64_t>());
    }
    const std::string& file() const noexcept { return file_; }

private:
    std::string file_;
    const json& object_;
};

std::int32_t parseIdKey(const JsonObject& object, const std::string& key) {
    std::int64_t id = 0;
    if (key.empty() || key.size() > 10 || key.find_first_not_of("0123456789") != std::string::npos ||
        (id = std::stoll(key)) > std::numeric_limits<std::int32_t>::max())
        throw ParseError(object.file(), 0, "added_tokens_decoder key \"" + key + "\" is not a token id");
    return static_cast<std::int32_t>(id);
}

void readSpecialTokens(const JsonObject& object, TokenizerConfig& config) {
    object.readToken("unk_token", config.unkToken);
    object.readToken("sep_token", config.sepToken);
    object.readToken("pad_token", config.padToken);
    object.readToken("cls_token", config.clsToken);
    object.readToken("mask_token", config.maskToken);
}

/// Added tokens with an id, in the order they were read; a token given two ids is an error of
/// the file that gives the second.
class AddedTokenIds {
public:
    void add(const std::string& file, const std::string& token, std::int32_t id) {
        if (token.empty()) throw ParseError(file, 0, "empty added token");
        if (const auto it = ids_.find(token); it != ids_.end()) {
            if (it->second != id)
                throw ParseError(file, 0,
                                 "added token \"" + token + "\" has id " + std::to_string(id) + " here but " +
                                     std::to_string(it->second) + " elsewhere");
            return;
        }
        ids_.emplace(token, id);
        ordered_.emplace_back(token, id);
        files_.push_back(file);
    }
    /// The file that listed the index-th entry.
    const std::string& fileOf(std::size_t index) const { return files_.at(index); }
    bool contains(const std::string& token) const { return ids_.contains(token); }
    std::vector<std::pair<std::string, std::int32_t>>& entries() { return ordered_; }

private:
    std::map<std::string, std::int32_t> ids_;
    std::vector<std::pair<std::string, std::int32_t>> ordered_;
    std::vector<std::string> files_;  // parallel to ordered_
};

void writeJson(const fs::path& file, const json& value) {
    AtomicFileWriter writer(file);
    writer.stream() << value.dump(2, ' ', false) << '\n';
    writer.commit();
}

json addedTokenEntry(const std::string& content) {
    // Written as special and not normalized, so transformers matches it verbatim in the raw
    // text and never lower-cases it, which is what this tokenizer does with every added token.
    return json{{"content", content}, {"lstrip", false},      {"normalized", false},
                {"rstrip", false},    {"single_word", false}, {"special", true}};
}

}  // namespace

BertTokenizer BertTokenizer::fromDirectory(const fs::path& directory) {
    const fs::path vocabularyFile = directory / kVocabularyFile;
    // XLM-R checkpoints have a SentencePiece model instead of vocab.txt, and its special tokens.
    std::shared_ptr<const SentencePieceModel> sentencePiece;
    if (const fs::path file = directory / kSentencePieceFile; !isRegularFile(vocabularyFile) && isRegularFile(file))
        sentencePiece = SentencePieceModel::load(file);
    // Without vocab.txt, a WordPiece tokenizer.json gives the vocabulary and the normalizer's settings.
    std::optional<TokenizerJson> fromJson;
    if (const fs::path file = directory / kTokenizerJsonFile;
        !sentencePiece && !isRegularFile(vocabularyFile) && isRegularFile(file))
        fromJson = readTokenizerJson(file);
    Vocabulary vocabulary = sentencePiece ? Vocabulary::fromTokens(sentencePiece->fairseqTokens())
                            : fromJson    ? std::move(fromJson->vocabulary)
                                          : Vocabulary::load(vocabularyFile);
    TokenizerConfig config;
    if (fromJson) config = fromJson->config;
    if (sentencePiece) {
        config.doLowerCase = false;
        config.unkToken = "<unk>";
        config.sepToken = "</s>";
        config.padToken = "<pad>";
        config.clsToken = "<s>";
        config.maskToken = "<mask>";
    }
    std::optional<std::vector<std::string>> additional;
    fs::path additionalFile;  // the file the list of additional special tokens came from
    AddedTokenIds ids;
    if (fromJson)
        for (const auto& [token, id] : fromJson->addedTokens)
            ids.add((directory / kTokenizerJsonFile).string(), token, id);

    const fs::path configFile = directory / kConfigFile;
    if (isRegularFile(configFile)) {
        const json root = readJsonObject(configFile);
        const JsonObject object(configFile, root);
        object.readBool("do_lower_case", config.doLowerCase);
        object.readBool("tokenize_chinese_chars", config.tokenizeChineseChars);
        object.readOptionalBool("strip_accents", config.stripAccents);
        object.readLength("model_max_length", config.modelMaxLength);
        readSpecialTokens(object, config);
        additional = object.readTokenList("additional_special_tokens");
        additionalFile = configFile;
        // Settings that would change tokenization in ways this tokenizer does not implement
        // are refused rather than silently ignored.
        bool basicTokenize = true;
        object.readBool("do_basic_tokenize", basicTokenize);
        if (!basicTokenize) throw ParseError(configFile.string(), 0, "do_basic_tokenize false is not supported");
        if (const auto neverSplit = object.readTokenList("never_split"); neverSplit && !neverSplit->empty())
            throw ParseError(configFile.string(), 0, "never_split is not supported");
        if (const json* decoder = object.find("added_tokens_decoder"); decoder && !decoder->is_null()) {
            if (!decoder->is_object()) object.wrongType("added_tokens_decoder", "an object", *decoder);
            // Ordered by id, whatever the order of the keys.
            std::map<std::int32_t, std::string> byId;
            for (const auto& [key, value] : decoder->items())
                byId[parseIdKey(object, key)] = object.tokenContent("added_tokens_decoder." + key, value);
            for (const auto& [id, token] : byId) ids.add(object.file(), token, id);
        }
    }
    const fs::path specialTokensFile = directory / kSpecialTokensFile;
    if (isRegularFile(specialTokensFile)) {
        // transformers lets special_tokens_map.json override tokenizer_config.json.
        const json root = readJsonObject(specialTokensFile);
        const JsonObject object(specialTokensFile, root);
        readSpecialTokens(object, config);
        if (auto list = object.readTokenList("additional_special_tokens")) {
            additional = std::move(list);
            additionalFile = specialTokensFile;
        }
    }
    const fs::path addedTokensFile = directory / kAddedTokensFile;
    if (isRegularFile(addedTokensFile)) {
        const json root = readJsonObject(addedTokensFile);
        const JsonObject object(addedTokensFile, root);
        std::map<std::int32_t, std::string> byId;
        for (const auto& [token, id] : root.items()) {
            const std::int32_t value = object.tokenId("the id of \"" + token + "\"", id);
            if (const auto it = byId.find(value); it != byId.end())
                throw ParseError(
                    addedTokensFile.string(), 0,
                    "id " + std::to_string(value) + " is given to \"" + it->second + "\" and \"" + token + "\"");
            byId.emplace(value, token);
        }
        for (const auto& [id, token] : byId) ids.add(object.file(), token, id);
    }
    // Additional special tokens that no file gives an id keep their vocabulary id or, as
    // transformers does, get the next free one.
    if (additional) {
        std::size_t next = vocabulary.size();
        for (const auto& [token, id] : ids.entries()) next = std::max(next, static_cast<std::size_t>(id) + 1);
        for (const auto& token : *additional) {
            if (ids.contains(token)) continue;
            const auto inVocabulary = vocabulary.id(token);
            if (!inVocabulary && next > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
                throw ParseError(additionalFile.string(), 0,
                                 "no token id is left for \"" + token + "\" (ids are 32-bit)");
            const std::int32_t id = inVocabulary ? *inVocabulary : static_cast<std::int32_t>(next++);
            ids.add(additionalFile.string(), token, id);
        }
    }
    config.addedTokens = std::move(ids.entries());
    try {
        if (sentencePiece) return BertTokenizer(std::move(sentencePiece), std::move(config));
        return BertTokenizer(std::move(vocabulary), std::move(config));
    } catch (const ParseError&) {
        throw;
    } catch (const AddedTokenError& e) {
        // The file that gave the conflicting token its id.
        throw ParseError(ids.fileOf(e.index), 0, e.what());
    } catch (const Error& e) {
        // Inconsistent ids between the files: name the file that lists the added tokens.
        throw ParseError((isRegularFile(configFile) ? configFile : vocabularyFile).string(), 0, e.what());
    }
}

void BertTokenizer::save(const fs::path& directory) const {
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec) throw Error("cannot create " + directory.string() + ": " + ec.message());
    if (sentencePiece_) {
        sentencePiece_->save(directory / kSentencePieceFile);
        // A vocab.txt left from an earlier save would be read instead of the SentencePiece model.
        fs::remove(directory / kVocabularyFile, ec);
        if (ec) throw Error("cannot remove " + (directory / kVocabularyFile).string() + ": " + ec.message());
    } else {
        vocabulary_.save(directory / kVocabularyFile);
    }

    const std::pair<const std::string*, std::int32_t> specials[] = {{&config_.unkToken, unk_},
                                                                    {&config_.sepToken, sep_},
                                                                    {&config_.padToken, pad_},
                                                                    {&config_.clsToken, cls_},
                                                                    {&config_.maskToken, mask_}};
    json decoder = json::object();
    for (const auto& [token, id] : specials) decoder[std::to_string(id)] = addedTokenEntry(*token);
    json additional = json::array();
    json addedIds = json::object();
    for (const auto& [token, id] : config_.addedTokens) {
        decoder[std::to_string(id)] = addedTokenEntry(token);
        const bool special =
            std::any_of(std::begin(specials), std::end(specials), [&](const auto& s) { return *s.first == token; });
        if (!special) additional.push_back(token);
        // transformers writes the tokens past vocab.txt to added_tokens.json.
        if (static_cast<std::size_t>(id) >= vocabulary_.size()) addedIds[token] = id;
    }
    const json strip = config_.stripAccents ? json(*config_.stripAccents) : json(nullptr);
    json tokenizerConfig = {
        {"added_tokens_decoder", decoder},
        {"additional_special_tokens", additional},
        {"clean_up_tokenization_spaces", true},
        {"cls_token", config_.clsToken},
        {"do_basic_tokenize", true},
        {"do_lower_case", config_.doLowerCase},
        {"mask_token", config_.maskToken},
        {"model_max_length", config_.modelMaxLength},
        {"never_split", nullptr},
        {"pad_token", config_.padToken},
        {"sep_token", config_.sepToken},
        {"strip_accents", strip},
        {"tokenize_chinese_chars", config_.tokenizeChineseChars},
        {"tokenizer_class", "BertTokenizer"},
        {"unk_token", config_.unkToken},
    };
    if (sentencePiece_) {
        // As transformers saves an XLMRobertaTokenizer: no BERT-only settings, <s> and </s> as
        // the sequence's begin and end.
        for (const char* key :
             {"do_basic_tokenize", "do_lower_case", "never_split", "strip_accents", "tokenize_chinese_chars"})
            tokenizerConfig.erase(key);
        tokenizerConfig["tokenizer_class"] = "XLMRobertaTokenizer";
        tokenizerConfig["bos_token"] = config_.clsToken;
        tokenizerConfig["eos_token"] = config_.sepToken;
    }
    writeJson(directory / kConfigFile, tokenizerConfig);

    json specialMap = {{"cls_token", config_.clsToken},
                       {"mask_token", config_.maskToken},
                       {"pad_token", config_.padToken},
                       {"sep_token", config_.sepToken},
                       {"unk_token", config_.unkToken}};
    if (!additional.empty()) specialMap["additional_special_tokens"] = additional;
    writeJson(directory / kSpecialTokensFile, specialMap);

    const fs::path addedTokensFile = directory / kAddedTokensFile;
    if (!addedIds.empty()) {
        writeJson(addedTokensFile, addedIds);
    } else {
        // A stale file from an earlier save would add tokens this tokenizer does not have.
        fs::remove(addedTokensFile, ec);
        if (ec) throw Error("cannot remove " + addedTokensFile.string() + ": " + ec.message());
    }
}

}  // namespace linkscope::encoder
