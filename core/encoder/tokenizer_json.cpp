#include "encoder/tokenizer_json.h"

#include <limits>
#include <optional>

#include "util/error.h"
#include "util/json_file.h"

namespace linkscope::encoder {
namespace {

using nlohmann::json;

/// Members of one object of the file, each checked for its type; errors name the member's path.
class Member {
public:
    Member(const std::string& source, const json& object, std::string path)
        : source_(source), object_(object), path_(std::move(path)) {}

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(source_, 0, message); }

    const json* find(const std::string& key) const {
        const auto it = object_.find(key);
        return it == object_.end() || it->is_null() ? nullptr : &*it;
    }
    std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    /// The member `key`, an object, as a Member of its own.
    Member child(const json& object, const std::string& key) const { return Member(source_, object, name(key)); }
    const json& object(const std::string& key) const {
        const json* value = find(key);
        if (!value) fail("\"" + name(key) + "\" is missing");
        if (!value->is_object()) fail("\"" + name(key) + "\" must be an object, got " + briefJson(*value));
        return *value;
    }
    std::optional<std::string> string(const std::string& key) const {
        const json* value = find(key);
        if (!value) return std::nullopt;
        if (!value->is_string()) fail("\"" + name(key) + "\" must be a string, got " + briefJson(*value));
        return value->get<std::string>();
    }
    std::optional<bool> boolean(const std::string& key) const {
        const json* value = find(key);
        if (!value) return std::nullopt;
        if (!value->is_boolean()) fail("\"" + name(key) + "\" must be true or false, got " + briefJson(*value));
        return value->get<bool>();
    }
    std::optional<std::int64_t> integer(const std::string& key) const {
        const json* value = find(key);
        if (!value) return std::nullopt;
        if (!value->is_number_integer()) fail("\"" + name(key) + "\" must be an integer, got " + briefJson(*value));
        if (value->is_number_unsigned() && value->get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())
            return std::numeric_limits<std::int64_t>::max();
        return value->get<std::int64_t>();
    }

private:
    const std::string& source_;
    const json& object_;
    std::string path_;
};

std::int32_t tokenId(const Member& at, const std::string& what, const json& value, std::size_t bound) {
    if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<std::int64_t>() < 0))
        at.fail(what + " must be a non-negative integer id, got " + briefJson(value));
    const auto id = value.get<std::uint64_t>();
    if (id >= bound)
        at.fail(what + " is " + std::to_string(id) + ", past the " + std::to_string(bound) + " ids allowed");
    return static_cast<std::int32_t>(id);
}

/// A component (normalizer, pre_tokenizer), refused unless its type is `expected`.
Member requireType(const Member& top, const std::string& key, const std::string& expected) {
    if (!top.find(key)) top.fail("\"" + key + "\" is missing or null; only BERT's " + expected + " is supported");
    const Member component = top.child(top.object(key), key);
    const auto type = component.string("type");
    if (!type) top.fail("\"" + key + ".type\" is missing");
    if (*type != expected) top.fail(key + " \"" + *type + "\" is not supported; only BERT's " + expected + " is");
    return component;
}

Vocabulary readVocabulary(const Member& model) {
    const json& vocab = model.object("vocab");
    if (vocab.size() > kMaxTokenizerJsonTokens)
        model.fail("\"model.vocab\" holds " + std::to_string(vocab.size()) + " tokens, more than the " +
                   std::to_string(kMaxTokenizerJsonTokens) + " allowed");
    if (vocab.empty()) model.fail("\"model.vocab\" is empty");
    std::vector<std::string> tokens(vocab.size());
    std::vector<bool> seen(vocab.size(), false);
    for (const auto& [token, value] : vocab.items()) {
        const std::int32_t id = tokenId(model, "the id of \"" + token + "\" in model.vocab", value, vocab.size());
        if (seen[static_cast<std::size_t>(id)])
            model.fail("id " + std::to_string(id) + " is given to \"" + tokens[static_cast<std::size_t>(id)] +
                       "\" and \"" + token + "\" in model.vocab");
        seen[static_cast<std::size_t>(id)] = true;
        tokens[static_cast<std::size_t>(id)] = token;
    }
    // n distinct ids below n: every id 0..n-1 is given once.
    try {
        return Vocabulary::fromTokens(std::move(tokens));
    } catch (const ParseError&) {
        throw;
    } catch (const Error& e) {
        model.fail(std::string("model.vocab: ") + e.what());
    }
}

}  // namespace

TokenizerJson parseTokenizerJson(const std::string& text, const std::string& source) {
    const json root = parseJson(text, source);
    if (!root.is_object()) throw ParseError(source, 0, "expected a JSON object, got " + briefJson(root));
    const Member top(source, root, std::string());
    TokenizerJson result;

    const json& modelObject = top.object("model");
    const Member model = top.child(modelObject, "model");
    const auto type = model.string("type");
    if (!type) top.fail("\"model.type\" is missing");
    if (*type != "WordPiece")
        top.fail("tokenizer model \"" + *type +
                 "\" is not supported; only WordPiece (BERT's) is read from tokenizer.json");
    result.vocabulary = readVocabulary(model);
    if (const auto unk = model.string("unk_token")) result.config.unkToken = *unk;
    if (const auto prefix = model.string("continuing_subword_prefix"); prefix && *prefix != "##")
        top.fail("continuing_subword_prefix \"" + *prefix + "\" is not supported; only \"##\" is");
    if (const auto chars = model.integer("max_input_chars_per_word"); chars && *chars != 100)
        top.fail("max_input_chars_per_word " + std::to_string(*chars) + " is not supported; only 100 is");

    const Member normalizer = requireType(top, "normalizer", "BertNormalizer");
    if (normalizer.boolean("clean_text") == false)
        top.fail("normalizer.clean_text false is not supported; BERT's tokenizer always cleans the text");
    result.config.doLowerCase = normalizer.boolean("lowercase").value_or(true);
    result.config.tokenizeChineseChars = normalizer.boolean("handle_chinese_chars").value_or(true);
    result.config.stripAccents = normalizer.boolean("strip_accents");
    requireType(top, "pre_tokenizer", "BertPreTokenizer");

    if (const json* added = top.find("added_tokens")) {
        if (!added->is_array()) top.fail("\"added_tokens\" must be a list, got " + briefJson(*added));
        if (added->size() > kMaxTokenizerJsonTokens)
            top.fail("\"added_tokens\" holds more than " + std::to_string(kMaxTokenizerJsonTokens) + " tokens");
        for (const json& entry : *added) {
            if (!entry.is_object()) top.fail("an entry of \"added_tokens\" must be an object, got " + briefJson(entry));
            const Member token(source, entry, "added_tokens[]");
            const auto content = token.string("content");
            if (!content || content->empty()) top.fail("an entry of \"added_tokens\" has no \"content\"");
            const json* id = token.find("id");
            if (!id) top.fail("added token \"" + *content + "\" has no \"id\"");
            result.addedTokens.emplace_back(
                *content, tokenId(top, "the id of added token \"" + *content + "\"", *id,
                                  static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) + 1));
        }
    }
    return result;
}

TokenizerJson readTokenizerJson(const std::filesystem::path& file) {
    return parseTokenizerJson(readTextFile(file), file.string());
}

}  // namespace linkscope::encoder
