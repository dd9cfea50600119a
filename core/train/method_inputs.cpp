#include "train/method_inputs.h"

#include <algorithm>
#include <cctype>
#include <span>
#include <vector>

#include "corpus/document_text.h"

namespace linkscope::train {

namespace {

bool isSpace(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool opensSentence(char c) noexcept {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
}

// True when a sentence ends right before byte `at` of text: "x. Y" with `at` at the space.
bool sentenceEndsBefore(std::string_view text, std::size_t at) noexcept {
    if (at == 0 || at + 1 >= text.size() || !isSpace(text[at])) return false;
    const char last = text[at - 1];
    return (last == '.' || last == '?' || last == '!') && opensSentence(text[at + 1]);
}

// The white-space separated words of text.
std::vector<std::string_view> wordsOf(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < text.size()) {
        while (at < text.size() && isSpace(text[at])) ++at;
        const std::size_t begin = at;
        while (at < text.size() && !isSpace(text[at])) ++at;
        if (at > begin) words.push_back(text.substr(begin, at - begin));
    }
    return words;
}

void appendWords(std::string& out, std::span<const std::string_view> words) {
    for (const auto word : words) {
        if (!out.empty()) out += ' ';
        out += word;
    }
}

}  // namespace

std::pair<std::string_view, std::string_view> markerTokens(ContextMarkers markers) noexcept {
    switch (markers) {
        case ContextMarkers::Belhd:
            return {"[S]", "[E]"};
        case ContextMarkers::LeNguyen:
            return {"[START]", "[END]"};
        case ContextMarkers::None:
            break;
    }
    return {};
}

ByteRange sentenceAround(std::string_view text, ByteRange mention, std::size_t abstractStart) noexcept {
    const std::size_t end = std::min(mention.end, text.size());
    std::size_t begin = std::min(mention.begin, end);
    // Back to the title/abstract boundary or the previous sentence end, whichever is nearer.
    std::size_t sentenceBegin = (abstractStart <= begin) ? abstractStart : 0;
    for (std::size_t at = begin; at > sentenceBegin; --at)
        if (sentenceEndsBefore(text, at - 1)) {
            sentenceBegin = at;
            break;
        }
    std::size_t sentenceEnd = (abstractStart > end && abstractStart > 0) ? abstractStart - 1 : text.size();
    for (std::size_t at = end; at < sentenceEnd; ++at)
        if (sentenceEndsBefore(text, at)) {
            sentenceEnd = at;
            break;
        }
    return {sentenceBegin, sentenceEnd};
}

std::size_t contextWordsFor(std::size_t maxLength) noexcept {
    // [CLS], [SEP], two markers and ~8 tokens of mention; the rest split between both sides.
    const std::size_t reserved = 12;
    return maxLength > reserved ? (maxLength - reserved) / 4 : 0;
}

std::string mentionInput(const Document& document, std::size_t start, std::size_t end, std::string_view mention,
                         ContextMarkers markers, std::size_t contextWords) {
    if (markers == ContextMarkers::None) return std::string(mention);
    const auto [open, close] = markerTokens(markers);
    const DocumentText text(document);
    std::string_view left, right;
    if (const auto bytes = text.byteRange({start, end})) {
        const ByteRange sentence = sentenceAround(text.str(), *bytes, document.title.size() + 1);
        left = std::string_view(text.str()).substr(sentence.begin, bytes->begin - sentence.begin);
        right = std::string_view(text.str()).substr(bytes->end, sentence.end - bytes->end);
    }
    auto leftWords = wordsOf(left);
    auto rightWords = wordsOf(right);
    if (leftWords.size() > contextWords) leftWords.erase(leftWords.begin(), leftWords.end() - long(contextWords));
    if (rightWords.size() > contextWords) rightWords.resize(contextWords);

    std::string input;
    appendWords(input, leftWords);
    if (!input.empty()) input += ' ';
    input += open;
    input += ' ';
    input += mention;
    input += ' ';
    input += close;
    if (!rightWords.empty()) input += ' ';
    std::string tail;
    appendWords(tail, rightWords);
    input += tail;
    return input;
}

TokenCounter tokenCounterOf(const encoder::BertTokenizer& tokenizer) {
    return [&tokenizer](std::string_view text) { return tokenizer.tokenize(text).size() + 2; };  // + [CLS], [SEP]
}

std::string fittedMentionInput(const Document& document, std::size_t start, std::size_t end, std::string_view mention,
                               ContextMarkers markers, std::size_t maxLength, const TokenCounter& count) {
    std::size_t words = contextWordsFor(maxLength);
    std::string input = mentionInput(document, start, end, mention, markers, words);
    if (!count || markers == ContextMarkers::None) return input;
    while (words > 0 && count(input) > maxLength) input = mentionInput(document, start, end, mention, markers, --words);
    // A mention too long to fit even without context (BC5CDR has 16-word mentions, over a
    // 32-token window): words are dropped from its end, as fittedNameInput() does for names, so
    // the closing marker stays and the method pools over the mention's first words. The encoder
    // would otherwise refuse the input, and a training run on such a corpus would fail.
    std::string_view kept = mention;
    while (count(input) > maxLength) {
        const std::size_t lastSpace = kept.find_last_of(' ');
        if (lastSpace == std::string_view::npos) break;
        kept = kept.substr(0, lastSpace);
        input = mentionInput(document, start, end, kept, markers, 0);
    }
    return input;
}

std::string nameInput(std::string_view name, ContextMarkers markers) {
    if (markers == ContextMarkers::None) return std::string(name);
    const auto [open, close] = markerTokens(markers);
    std::string input(open);
    input += ' ';
    input += name;
    input += ' ';
    input += close;
    return input;
}

std::string fittedNameInput(std::string_view name, ContextMarkers markers, std::size_t maxLength,
                            const TokenCounter& count) {
    std::string input = nameInput(name, markers);
    if (markers == ContextMarkers::None || !count) return input;
    std::string_view kept = name;
    while (count(input) > maxLength) {
        const std::size_t lastSpace = kept.find_last_of(' ');
        if (lastSpace == std::string_view::npos) break;
        kept = kept.substr(0, lastSpace);
        input = nameInput(kept, markers);
    }
    return input;
}

std::optional<std::string_view> mentionInsideMarkers(std::string_view input, ContextMarkers markers) noexcept {
    if (markers == ContextMarkers::None) return input;
    const auto [open, close] = markerTokens(markers);
    const std::size_t begin = input.find(open);
    if (begin == std::string_view::npos) return std::nullopt;
    const std::size_t inner = begin + open.size();
    const std::size_t end = input.find(close, inner);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view inside = input.substr(inner, end - inner);
    while (!inside.empty() && isSpace(inside.front())) inside.remove_prefix(1);
    while (!inside.empty() && isSpace(inside.back())) inside.remove_suffix(1);
    return inside;
}

std::string entityInput(const kb::KnowledgeBase& kb, kb::EntityIndex entity, std::size_t maxSynonyms) {
    std::string input;
    for (const auto& type : kb.semanticTypes(entity)) {
        if (!input.empty()) input += ", ";
        input += type.name.empty() ? type.id : type.name;
    }
    if (input.empty()) input = "entity";
    const std::string_view preferred = kb.preferredName(entity);
    input += " [SEP] ";
    input += preferred;
    std::size_t taken = 1;
    for (const std::string_view name : kb.names(entity)) {
        if (maxSynonyms != 0 && taken >= maxSynonyms) break;
        if (name == preferred) continue;
        input += " [SEP] ";
        input += name;
        ++taken;
    }
    return input;
}

}  // namespace linkscope::train
