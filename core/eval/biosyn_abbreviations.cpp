#include "eval/biosyn_abbreviations.h"

#include <map>
#include <vector>

#include "text/abbreviations.h"

namespace linkscope::eval {
namespace {

using AbbreviationMap = std::map<std::string, std::string, std::less<>>;

/// Python's str.split() on ASCII white space (the corpora's mentions hold no other).
std::vector<std::string> whitespaceTokens(std::string_view text) {
    std::vector<std::string> tokens;
    std::size_t i = 0;
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (i < text.size()) {
        while (i < text.size() && space(text[i])) ++i;
        const std::size_t start = i;
        while (i < text.size() && !space(text[i])) ++i;
        if (i > start) tokens.emplace_back(text.substr(start, i - start));
    }
    return tokens;
}

std::string lookUp(const AbbreviationMap& map, const std::string& token, bool& hit) {
    const auto found = map.find(token);
    if (found == map.end()) return token;
    hit = hit || found->second != token;
    return found->second;
}

/// One token as apply_abbr_dict treats it; `hit` is set when a short form was replaced.
std::string expandToken(const AbbreviationMap& map, std::string token, bool& hit) {
    if (token.find('/') != std::string::npos) {
        std::string rebuilt;
        std::size_t start = 0;
        for (;;) {
            const auto slash = token.find('/', start);
            const std::string piece =
                token.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
            rebuilt += lookUp(map, piece, hit);
            if (slash == std::string::npos) break;
            rebuilt += '/';
            start = slash + 1;
        }
        token = std::move(rebuilt);
    }
    if (token.ends_with(',')) {
        std::erase(token, ',');
        return lookUp(map, token, hit) + ",";
    }
    return lookUp(map, token, hit);
}

}  // namespace

TokenExpansion expandAbbreviationTokens(std::string_view mention,
                                        std::span<const text::AbbreviationDefinition> definitions) {
    AbbreviationMap map;
    for (const auto& definition : definitions) map[definition.shortForm] = definition.longForm;  // the last one wins

    TokenExpansion result;
    std::string previous(mention);
    for (int pass = 0; pass < text::kMaxExpansionPasses; ++pass) {
        std::string next;
        for (const auto& token : whitespaceTokens(previous)) {
            if (!next.empty()) next += ' ';
            next += expandToken(map, token, result.changed);
        }
        const bool stable = next == previous;
        previous = std::move(next);
        if (stable) break;
    }
    result.text = std::move(previous);
    return result;
}

}  // namespace linkscope::eval
