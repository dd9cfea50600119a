#include "retrieval/text_analyzer.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/uchar.h>

#include "retrieval/stop_words.h"
#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::retrieval {
namespace {

void requireUtf8(std::string_view text) {
    if (const auto bad = utf8::firstInvalidByte(text))
        throw Error("TF-IDF input is not valid UTF-8 (byte " + std::to_string(*bad) + " of \"" +
                    std::string(text.substr(0, 60)) + "\")");
}

bool isAsciiWord(unsigned char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string lowercaseLikePython(std::string_view text) {
    if (utf8::isAscii(text)) {
        std::string lower(text);
        for (char& c : lower)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        return lower;
    }
    std::string lower;
    lower.reserve(text.size());
    icu::StringByteSink<std::string> sink(&lower);
    UErrorCode status = U_ZERO_ERROR;
    // The root locale ("") gives the language-independent full mappings Python uses.
    icu::CaseMap::utf8ToLower("", 0, icu::StringPiece(text.data(), static_cast<std::int32_t>(text.size())), sink,
                              nullptr, status);
    if (U_FAILURE(status)) throw Error(std::string("lower-casing failed: ") + u_errorName(status));
    return lower;
}

bool isPythonWhitespace(char32_t c) noexcept {
    if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
    switch (c) {
        case 0x85:
        case 0xA0:
        case 0x1680:
        case 0x2028:
        case 0x2029:
        case 0x202F:
        case 0x205F:
        case 0x3000:
            return true;
        default:
            return c >= 0x2000 && c <= 0x200A;
    }
}

bool isPythonWordCharacter(char32_t c) noexcept {
    if (c < 0x80) return isAsciiWord(static_cast<unsigned char>(c));
    const auto cp = static_cast<UChar32>(c);
    return u_isalpha(cp) || u_getIntPropertyValue(cp, UCHAR_NUMERIC_TYPE) != U_NT_NONE;
}

TermAnalyzer::TermAnalyzer(const TfidfSettings& settings) : settings_(settings) { settings_.validate(); }

std::span<const std::string_view> TermAnalyzer::analyze(std::string_view text) {
    const bool ascii = utf8::isAscii(text);  // ASCII is valid UTF-8: no need to check further
    if (!ascii) requireUtf8(text);
    // Offsets are 32-bit; lower-casing grows UTF-8 by at most half, so 1 GiB of input always fits.
    if (text.size() >= (std::size_t{1} << 30))
        throw Error("TF-IDF input of " + std::to_string(text.size()) + " bytes is too long");
    terms_.clear();
    preprocess(text, ascii);
    if (settings_.analyzer == Analyzer::Char)
        charNgrams();
    else
        wordNgrams();
    return terms_;
}

void TermAnalyzer::preprocess(std::string_view text, bool ascii) {
    text_.clear();
    boundaries_.clear();
    ascii_ = false;
    if (ascii) {
        preprocessAscii(text);
        return;
    }
    const std::string lowered = settings_.lowercase ? lowercaseLikePython(text) : std::string();
    const std::string_view source = settings_.lowercase ? std::string_view(lowered) : text;
    if (settings_.analyzer == Analyzer::Word) {
        text_.assign(source);  // the word analyzer does not touch whitespace
        return;
    }
    // re.sub(r"\s\s+", " ", text): runs of two or more whitespace characters become one space.
    std::size_t at = 0;
    while (at < source.size()) {
        const std::size_t begin = at;
        const char32_t c = utf8::decodeValid(source, at);
        if (!isPythonWhitespace(c)) {
            boundaries_.push_back(static_cast<std::uint32_t>(text_.size()));
            text_.append(source.substr(begin, at - begin));
            continue;
        }
        std::size_t runEnd = at;
        std::size_t runLength = 1;
        while (runEnd < source.size()) {
            std::size_t next = runEnd;
            if (!isPythonWhitespace(utf8::decodeValid(source, next))) break;
            runEnd = next;
            ++runLength;
        }
        boundaries_.push_back(static_cast<std::uint32_t>(text_.size()));
        if (runLength >= 2)
            text_.push_back(' ');
        else
            text_.append(source.substr(begin, at - begin));
        at = runEnd;
    }
    boundaries_.push_back(static_cast<std::uint32_t>(text_.size()));
}

// The same for ASCII text, byte by byte (names and mentions are nearly always ASCII).
void TermAnalyzer::preprocessAscii(std::string_view text) {
    const auto isSpace = [](char c) { return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20); };
    const bool lower = settings_.lowercase;
    const bool collapse = settings_.analyzer == Analyzer::Char;
    text_.resize(text.size());
    std::size_t out = 0;
    for (std::size_t at = 0; at < text.size();) {
        char c = text[at];
        if (collapse && isSpace(c) && at + 1 < text.size() && isSpace(text[at + 1])) {
            while (at < text.size() && isSpace(text[at])) ++at;
            text_[out++] = ' ';
            continue;
        }
        if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        text_[out++] = c;
        ++at;
    }
    text_.resize(out);
    ascii_ = true;
}

void TermAnalyzer::charNgrams() {
    const std::string_view text = text_;
    if (ascii_) {  // characters are bytes
        for (std::size_t n = settings_.minN; n <= settings_.maxN && n <= text.size(); ++n)
            for (std::size_t i = 0; i + n <= text.size(); ++i) terms_.push_back(text.substr(i, n));
        return;
    }
    const std::size_t length = boundaries_.size() - 1;  // in code points
    for (std::size_t n = settings_.minN; n <= settings_.maxN && n <= length; ++n)
        for (std::size_t i = 0; i + n <= length; ++i)
            terms_.push_back(text.substr(boundaries_[i], boundaries_[i + n] - boundaries_[i]));
}

void TermAnalyzer::wordNgrams() {
    const std::string_view text = text_;
    // token_pattern (?u)\b\w\w+\b: a match starts at a word boundary and the greedy \w\w+ runs to
    // the end of the word, so the tokens are exactly the maximal word runs of two or more characters.
    tokens_.clear();
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t next = at;
        if (!isPythonWordCharacter(utf8::decodeValid(text, next))) {
            at = next;
            continue;
        }
        const std::size_t begin = at;
        std::size_t characters = 0;
        while (at < text.size()) {
            next = at;
            if (!isPythonWordCharacter(utf8::decodeValid(text, next))) break;
            at = next;
            ++characters;
        }
        if (characters < 2) continue;
        if (settings_.englishStopWords && isEnglishStopWord(text.substr(begin, at - begin))) continue;
        tokens_.emplace_back(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(at - begin));
    }
    const auto token = [&](std::size_t i) { return text.substr(tokens_[i].first, tokens_[i].second); };
    if (settings_.minN == 1)
        for (std::size_t i = 0; i < tokens_.size(); ++i) terms_.push_back(token(i));
    // Longer n-grams are new strings: write them all first, then take views, so that growing
    // joined_ cannot invalidate a view.
    joined_.clear();
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t n = std::max<std::size_t>(settings_.minN, 2); n <= settings_.maxN && n <= tokens_.size(); ++n)
        for (std::size_t i = 0; i + n <= tokens_.size(); ++i) {
            const std::size_t begin = joined_.size();
            for (std::size_t j = i; j < i + n; ++j) {
                if (j > i) joined_.push_back(' ');
                joined_.append(token(j));
            }
            spans.emplace_back(begin, joined_.size() - begin);
        }
    const std::string_view joined = joined_;
    for (const auto& [begin, size] : spans) terms_.push_back(joined.substr(begin, size));
}

std::vector<std::string> analyzeTerms(const TfidfSettings& settings, std::string_view text) {
    TermAnalyzer analyzer(settings);
    const auto terms = analyzer.analyze(text);
    return {terms.begin(), terms.end()};
}

}  // namespace linkscope::retrieval
