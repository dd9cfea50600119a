#include "encoder/tokenizer_casing.h"
#include "encoder/checkpoint_files.h"

#include <algorithm>
#include <optional>
#include <system_error>

#include "encoder/bert_tokenizer.h"
#include "encoder/sentencepiece_model.h"
#include "encoder/tokenizer_json.h"
#include "util/error.h"
#include "util/json_file.h"

namespace linkscope::encoder {
namespace {

namespace fs = std::filesystem;

bool isSpecialToken(const std::string& token) {
    if (token.size() < 2) return false;
    return (token.front() == '[' && token.back() == ']') || (token.front() == '<' && token.back() == '>');
}

}  // namespace

std::string casingSourceName(CasingSource source) {
    switch (source) {
        case CasingSource::TokenizerConfig:
            return "tokenizer_config.json";
        case CasingSource::TokenizerJson:
            return "tokenizer.json";
        case CasingSource::TransformersDefault:
            return "transformers' default";
        case CasingSource::SentencePiece:
            return "SentencePiece model";
    }
    return "unknown";
}

bool isPlainlyCased(std::size_t cappedTokens, std::size_t wordTokens) {
    // An uncased vocabulary has no capitals at all; a cased one has them in a large share of its
    // words. A handful of capitals (a few acronyms added by hand) is not "plainly" cased.
    constexpr std::size_t kMinCapped = 10;
    constexpr std::size_t kShareDivisor = 50;  // at least one token in fifty
    return cappedTokens >= kMinCapped && cappedTokens * kShareDivisor >= wordTokens;
}

void countCapitals(const Vocabulary& vocabulary, std::size_t& cappedTokens, std::size_t& wordTokens) {
    cappedTokens = 0;
    wordTokens = 0;
    for (const std::string& token : vocabulary.tokens()) {
        if (isSpecialToken(token)) continue;
        ++wordTokens;
        if (std::any_of(token.begin(), token.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) ++cappedTokens;
    }
}

CasingDecision decideCasing(const Vocabulary& vocabulary, const bool* configSays, const fs::path& configFile) {
    CasingDecision decision;
    countCapitals(vocabulary, decision.cappedTokens, decision.wordTokens);
    if (configSays) {
        decision.lowerCase = *configSays;
        decision.source = CasingSource::TokenizerConfig;
        return decision;
    }
    decision.lowerCase = true;
    decision.source = CasingSource::TransformersDefault;
    if (isPlainlyCased(decision.cappedTokens, decision.wordTokens)) {
        const std::string how = isRegularFile(configFile)
                                    ? "add \"do_lower_case\": false to " + configFile.string()
                                    : "add " + configFile.string() + " holding {\"do_lower_case\": false}";
        decision.warnings.push_back(
            "the vocabulary looks cased (" + std::to_string(decision.cappedTokens) + " of " +
            std::to_string(decision.wordTokens) +
            " tokens hold capitals) but nothing sets do_lower_case, so text is lower-cased as transformers "
            "does by default; if the model was trained on cased text, " +
            how);
    }
    return decision;
}

CasingDecision decideCasing(const fs::path& directory) {
    const fs::path vocabularyFile = directory / "vocab.txt";
    if (!isRegularFile(vocabularyFile) && isRegularFile(directory / kSentencePieceFile)) {
        CasingDecision decision;
        decision.lowerCase = false;
        decision.source = CasingSource::SentencePiece;
        return decision;
    }
    std::optional<TokenizerJson> fromJson;
    if (const fs::path file = directory / kTokenizerJsonFile; !isRegularFile(vocabularyFile) && isRegularFile(file))
        fromJson = readTokenizerJson(file);
    const Vocabulary vocabulary = fromJson ? std::move(fromJson->vocabulary) : Vocabulary::load(vocabularyFile);
    const fs::path configFile = directory / "tokenizer_config.json";
    bool says = true;
    bool given = false;
    if (isRegularFile(configFile)) {
        const nlohmann::json root = readJsonFile(configFile);
        if (root.is_object()) {
            if (const auto it = root.find("do_lower_case"); it != root.end()) {
                if (!it->is_boolean())
                    throw ParseError(configFile.string(), 0, "\"do_lower_case\" must be true or false");
                says = it->get<bool>();
                given = true;
            }
        }
    }
    if (!given && fromJson) {
        CasingDecision decision = decideCasing(vocabulary, &fromJson->config.doLowerCase, configFile);
        decision.source = CasingSource::TokenizerJson;
        return decision;
    }
    return decideCasing(vocabulary, given ? &says : nullptr, configFile);
}

}  // namespace linkscope::encoder
