#include "text/normalizer.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "text/spelling_map.h"
#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::text {
namespace {

// Python's string.punctuation.
constexpr std::string_view kAsciiPunctuation = R"(!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)";
// ASCII characters with the Unicode White_Space property.
constexpr std::string_view kAsciiWhiteSpace = " \t\n\v\f\r";

icu::StringPiece piece(std::string_view s) {
    if (s.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("text too long to normalize (" + std::to_string(s.size()) + " bytes)");
    return {s.data(), static_cast<std::int32_t>(s.size())};
}

void checkIcu(UErrorCode status, const char* what) {
    if (U_FAILURE(status)) throw Error(std::string("ICU ") + what + " failed: " + u_errorName(status));
}

// Calls visit(codePoint, byteOffset, byteLength) for every character of valid UTF-8 text;
// ASCII bytes skip the decoder.
template <class Visit>
void forEachCodePoint(std::string_view s, Visit&& visit) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
    const auto length = static_cast<std::int32_t>(s.size());
    std::int32_t i = 0;
    while (i < length) {
        const std::int32_t begin = i;
        UChar32 c = bytes[i];
        if (c < 0x80) {
            ++i;
        } else {
            U8_NEXT(bytes, i, length, c);
            if (c < 0) c = 0xFFFD;  // cannot happen: the input was validated
        }
        visit(static_cast<char32_t>(c), static_cast<std::size_t>(begin), static_cast<std::size_t>(i - begin));
    }
}

// Appends the pieces of s between runs of separator characters, joined by single spaces:
// Python's ' '.join(re.split('[...]+', s)).strip() in one pass and without a regex.
template <class IsSeparator>
void joinPieces(std::string_view s, IsSeparator&& isSeparator, std::string& out) {
    bool pendingSpace = false;
    forEachCodePoint(s, [&](char32_t c, std::size_t begin, std::size_t length) {
        if (isSeparator(c)) {
            pendingSpace = !out.empty();
            return;
        }
        if (pendingSpace) out.push_back(' ');
        pendingSpace = false;
        out.append(s.data() + begin, length);
    });
}

}  // namespace

struct Normalizer::Tables {
    std::array<bool, 128> asciiWhiteSpace{};
    std::array<bool, 128> asciiSeparator{};  // white space, and punctuation when it is removed
    std::vector<char32_t> keptNonAscii;      // sorted
    const icu::Normalizer2* nfd = nullptr;   // ICU singletons, immutable and thread-safe
    const icu::Normalizer2* nfc = nullptr;

    bool isWhiteSpace(char32_t c) const noexcept {
        return c < 128 ? asciiWhiteSpace[c] : u_isUWhiteSpace(static_cast<UChar32>(c));
    }
    bool isSeparator(char32_t c, bool unicodePunctuation) const noexcept {
        if (c < 128) return asciiSeparator[c];
        if (u_isUWhiteSpace(static_cast<UChar32>(c))) return true;
        return unicodePunctuation && u_ispunct(static_cast<UChar32>(c)) &&
               !std::binary_search(keptNonAscii.begin(), keptNonAscii.end(), c);
    }
};

NormalizerOptions bioSynOptions(std::shared_ptr<const SpellingMap> spelling) {
    NormalizerOptions options;
    options.unicodePunctuation = false;
    options.spelling = std::move(spelling);
    return options;
}

Normalizer::Normalizer(NormalizerOptions options) : options_(std::move(options)) {
    auto tables = std::make_unique<Tables>();
    for (const char c : kAsciiWhiteSpace) tables->asciiWhiteSpace[static_cast<unsigned char>(c)] = true;
    tables->asciiSeparator = tables->asciiWhiteSpace;
    if (options_.removePunctuation)
        for (const char c : kAsciiPunctuation) tables->asciiSeparator[static_cast<unsigned char>(c)] = true;
    if (!utf8::isValid(options_.keepCharacters)) throw Error("NormalizerOptions::keepCharacters is not valid UTF-8");
    forEachCodePoint(options_.keepCharacters, [&](char32_t c, std::size_t, std::size_t) {
        if (c < 128)
            tables->asciiSeparator[c] = tables->asciiWhiteSpace[c];  // white space always separates
        else
            tables->keptNonAscii.push_back(c);
    });
    std::sort(tables->keptNonAscii.begin(), tables->keptNonAscii.end());
    if (options_.stripAccents) {
        UErrorCode status = U_ZERO_ERROR;
        tables->nfd = icu::Normalizer2::getNFDInstance(status);
        tables->nfc = icu::Normalizer2::getNFCInstance(status);
        checkIcu(status, "normalizer instances");
    }
    tables_ = std::move(tables);
}

Normalizer::~Normalizer() = default;
Normalizer::Normalizer(const Normalizer& other) : Normalizer(other.options_) {}
Normalizer& Normalizer::operator=(const Normalizer& other) {
    if (this != &other) *this = Normalizer(other.options_);
    return *this;
}
Normalizer::Normalizer(Normalizer&&) noexcept = default;
Normalizer& Normalizer::operator=(Normalizer&&) noexcept = default;

std::string Normalizer::normalize(std::string_view text) const {
    std::string out;
    normalizeInto(text, out);
    return out;
}

void Normalizer::normalizeInto(std::string_view text, std::string& out) const {
    out.clear();
    const bool ascii = utf8::isAscii(text);
    if (!ascii) {
        if (const auto bad = utf8::firstInvalidByte(text))
            throw Error("cannot normalize text with invalid UTF-8 at byte " + std::to_string(*bad + 1));
    }
    const Tables& tables = *tables_;
    // Each step reads `current` and writes the next buffer; two buffers are enough.
    std::string bufferA;
    std::string bufferB;
    std::string_view current = text;

    if (options_.lowercase) {
        if (ascii) {
            bufferA.assign(text);
            for (char& c : bufferA)
                if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        } else {
            UErrorCode status = U_ZERO_ERROR;
            icu::StringByteSink<std::string> sink(&bufferA, static_cast<std::int32_t>(text.size()));
            icu::CaseMap::utf8ToLower("", 0, piece(text), sink, nullptr, status);
            checkIcu(status, "lower-casing");
        }
        current = bufferA;
    }

    if (options_.stripAccents && !utf8::isAscii(current)) {
        UErrorCode status = U_ZERO_ERROR;
        std::string decomposed;
        icu::StringByteSink<std::string> decomposedSink(&decomposed);
        tables.nfd->normalizeUTF8(0, piece(current), decomposedSink, nullptr, status);
        checkIcu(status, "NFD normalization");
        std::string unmarked;
        unmarked.reserve(decomposed.size());
        forEachCodePoint(decomposed, [&](char32_t c, std::size_t begin, std::size_t length) {
            if (u_charType(static_cast<UChar32>(c)) != U_NON_SPACING_MARK) unmarked.append(decomposed, begin, length);
        });
        std::string& target = current.data() == bufferA.data() ? bufferB : bufferA;
        target.clear();
        icu::StringByteSink<std::string> composedSink(&target);
        tables.nfc->normalizeUTF8(0, piece(unmarked), composedSink, nullptr, status);
        checkIcu(status, "NFC normalization");
        current = target;
    }

    if (options_.spelling) {
        std::string& target = current.data() == bufferA.data() ? bufferB : bufferA;
        target.clear();
        target.reserve(current.size() + 16);
        std::size_t tokenBegin = std::string_view::npos;
        const auto flush = [&](std::size_t tokenEnd) {
            const auto token = current.substr(tokenBegin, tokenEnd - tokenBegin);
            if (!target.empty()) target.push_back(' ');
            if (const std::string* correction = options_.spelling->find(token))
                target.append(*correction);
            else
                target.append(token);
            tokenBegin = std::string_view::npos;
        };
        forEachCodePoint(current, [&](char32_t c, std::size_t begin, std::size_t) {
            if (tables.isWhiteSpace(c)) {
                if (tokenBegin != std::string_view::npos) flush(begin);
            } else if (tokenBegin == std::string_view::npos) {
                tokenBegin = begin;
            }
        });
        if (tokenBegin != std::string_view::npos) flush(current.size());
        current = target;
    }

    if (options_.removePunctuation) {
        out.reserve(current.size());
        const bool unicodePunctuation = options_.unicodePunctuation;
        joinPieces(
            current, [&](char32_t c) { return tables.isSeparator(c, unicodePunctuation); }, out);
        return;
    }
    // Only the final strip() of surrounding white space remains.
    std::size_t first = std::string_view::npos;
    std::size_t last = 0;
    forEachCodePoint(current, [&](char32_t c, std::size_t begin, std::size_t length) {
        if (tables.isWhiteSpace(c)) return;
        if (first == std::string_view::npos) first = begin;
        last = begin + length;
    });
    if (first != std::string_view::npos) out.assign(current.substr(first, last - first));
}

}  // namespace linkscope::text
