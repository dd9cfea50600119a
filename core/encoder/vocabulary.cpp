// vocab.txt: the token of id N is on line N + 1.
#include <limits>

#include "encoder/bert_tokenizer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/utf8.h"

namespace linkscope::encoder {

Vocabulary Vocabulary::load(const std::filesystem::path& file) {
    Vocabulary vocabulary;
    LineReader reader(file);
    std::string line;
    while (reader.next(line)) {
        // transformers keeps every line as a token, so an empty line would silently become a
        // token that no text can produce and shift nothing visible: treat it as damage.
        if (line.empty()) reader.fail("empty token (vocab.txt has one token per line)");
        if (const auto it = vocabulary.ids_.find(line); it != vocabulary.ids_.end())
            reader.fail("duplicate token \"" + line + "\" (first on line " + std::to_string(it->second + 1) + ")");
        if (vocabulary.tokens_.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
            reader.fail("too many tokens");
        vocabulary.add(std::move(line));
        line.clear();
    }
    if (vocabulary.tokens_.empty()) throw ParseError(file.string(), 0, "empty vocabulary");
    return vocabulary;
}

Vocabulary Vocabulary::fromTokens(std::vector<std::string> tokens) {
    Vocabulary vocabulary;
    vocabulary.tokens_.reserve(tokens.size());
    for (auto& token : tokens) {
        if (vocabulary.ids_.contains(token)) throw Error("duplicate vocabulary token \"" + token + "\"");
        vocabulary.add(std::move(token));
    }
    return vocabulary;
}

std::optional<std::int32_t> Vocabulary::id(std::string_view token) const {
    if (const auto it = ids_.find(token); it != ids_.end()) return it->second;
    return std::nullopt;
}

const std::string& Vocabulary::token(std::int32_t id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= tokens_.size())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary (size " +
                    std::to_string(tokens_.size()) + ")");
    return tokens_[static_cast<std::size_t>(id)];
}

std::int32_t Vocabulary::add(std::string token) {
    if (token.empty()) throw Error("empty vocabulary token");
    if (!utf8::isValid(token)) throw Error("vocabulary token is not valid UTF-8");
    // A token with a line break would not survive save() and load() as one line.
    if (token.find_first_of("\r\n") != std::string::npos) throw Error("vocabulary token contains a line break");
    if (const auto it = ids_.find(token); it != ids_.end()) return it->second;
    const auto id = static_cast<std::int32_t>(tokens_.size());
    ids_.emplace(token, id);
    tokens_.push_back(std::move(token));
    return id;
}

void Vocabulary::save(const std::filesystem::path& file) const {
    AtomicFileWriter writer(file);
    for (const auto& token : tokens_) writer.stream() << token << '\n';
    writer.commit();
}

}  // namespace linkscope::encoder
