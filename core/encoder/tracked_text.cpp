#include "encoder/tracked_text.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <algorithm>
#include <string>

#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::encoder::detail {
namespace {

void appendUtf16(std::u16string& out, char32_t c) {
    if (c < 0x10000) {
        out.push_back(static_cast<char16_t>(c));
    } else {
        out.push_back(static_cast<char16_t>(U16_LEAD(c)));
        out.push_back(static_cast<char16_t>(U16_TRAIL(c)));
    }
}

// Code points of UTF-16 that ICU produced (well-formed by construction).
template <class F>
void forEachCodePoint(const char16_t* s, std::int32_t length, F&& f) {
    for (std::int32_t i = 0; i < length;) {
        UChar32 c = 0;
        U16_NEXT(s, i, length, c);
        f(static_cast<char32_t>(c));
    }
}

std::int8_t category(char32_t c) noexcept { return u_charType(static_cast<UChar32>(c)); }

const UNormalizer2* normalizerFor(NormalForm form) {
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2* normalizer =
        form == NormalForm::nfc ? unorm2_getNFCInstance(&status) : unorm2_getNFDInstance(&status);
    if (U_FAILURE(status) || normalizer == nullptr)
        throw Error(std::string("ICU normalizer unavailable: ") + u_errorName(status));
    return normalizer;
}

// Normalizes one piece of UTF-16; the output may be longer than the input (NFD of Hangul
// gives three characters per syllable), so retry once with the size ICU asks for.
std::u16string normalizePiece(const UNormalizer2* normalizer, const std::u16string& source) {
    std::u16string result(source.size() * 3 + 4, u'\0');
    UErrorCode status = U_ZERO_ERROR;
    auto length = unorm2_normalize(normalizer, source.data(), static_cast<std::int32_t>(source.size()), result.data(),
                                   static_cast<std::int32_t>(result.size()), &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
        result.assign(static_cast<std::size_t>(length), u'\0');
        status = U_ZERO_ERROR;
        length = unorm2_normalize(normalizer, source.data(), static_cast<std::int32_t>(source.size()), result.data(),
                                  length, &status);
    }
    if (U_FAILURE(status)) throw Error(std::string("Unicode normalization failed: ") + u_errorName(status));
    result.resize(static_cast<std::size_t>(length));
    return result;
}

}  // namespace

TrackedText decodeTracked(std::string_view text) {
    if (const auto bad = utf8::firstInvalidByte(text))
        throw Error("text to tokenize is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    TrackedText chars;
    chars.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t begin = at;
        const char32_t cp = utf8::decodeValid(text, at);
        chars.push_back({cp, begin, at});
    }
    return chars;
}

void appendUtf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

std::string toUtf8(std::span<const TrackedChar> chars) {
    std::string out;
    out.reserve(chars.size());
    for (const auto& c : chars) appendUtf8(out, c.codePoint);
    return out;
}

std::u32string toCodePoints(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) out.push_back(utf8::decodeValid(text, at));
    return out;
}

void appendLowerCase(const TrackedChar& c, TrackedText& out) {
    if (c.codePoint < 0x80) {
        const char32_t ascii = c.codePoint >= U'A' && c.codePoint <= U'Z' ? c.codePoint + 32 : c.codePoint;
        out.push_back({ascii, c.begin, c.end});
        return;
    }
    std::u16string source;
    appendUtf16(source, c.codePoint);
    char16_t lowered[8];  // full lower-case mappings are at most three code points
    UErrorCode status = U_ZERO_ERROR;
    const auto length = u_strToLower(lowered, 8, source.data(), static_cast<std::int32_t>(source.size()), "", &status);
    if (U_FAILURE(status)) throw Error(std::string("lower-casing failed: ") + u_errorName(status));
    forEachCodePoint(lowered, length, [&](char32_t cp) { out.push_back({cp, c.begin, c.end}); });
}

TrackedText normalize(std::span<const TrackedChar> text, NormalForm form) {
    // ASCII is invariant under NFC and NFD: the common case costs one scan.
    if (std::all_of(text.begin(), text.end(), [](const TrackedChar& c) { return c.codePoint < 0x80; }))
        return {text.begin(), text.end()};
    const UNormalizer2* normalizer = normalizerFor(form);
    TrackedText out;
    out.reserve(text.size() + 8);
    std::u16string source;
    for (std::size_t first = 0; first < text.size();) {
        std::size_t last = first + 1;
        while (last < text.size() && !unorm2_hasBoundaryBefore(normalizer, static_cast<UChar32>(text[last].codePoint)))
            ++last;
        const auto piece = text.subspan(first, last - first);
        source.clear();
        std::size_t begin = piece.front().begin, end = piece.front().end;
        for (const auto& c : piece) {
            appendUtf16(source, c.codePoint);
            begin = std::min(begin, c.begin);
            end = std::max(end, c.end);
        }
        const std::u16string normalized = normalizePiece(normalizer, source);
        const std::size_t before = out.size();
        forEachCodePoint(normalized.data(), static_cast<std::int32_t>(normalized.size()), [&](char32_t cp) {
            out.push_back({cp, begin, end});
        });
        if (out.size() - before == piece.size())
            for (std::size_t k = 0; k < piece.size(); ++k) {
                out[before + k].begin = piece[k].begin;
                out[before + k].end = piece[k].end;
            }
        first = last;
    }
    return out;
}

bool isBertControl(char32_t c) noexcept {
    if (c == U'\t' || c == U'\n' || c == U'\r') return false;
    switch (category(c)) {
        case U_CONTROL_CHAR:
        case U_FORMAT_CHAR:
        case U_SURROGATE:
        case U_PRIVATE_USE_CHAR:
        case U_UNASSIGNED:
            return true;
        default:
            return false;
    }
}

bool isBertWhitespace(char32_t c) noexcept {
    if (c == U' ' || c == U'\t' || c == U'\n' || c == U'\r') return true;
    return c >= 0x80 && category(c) == U_SPACE_SEPARATOR;
}

bool isBertPunctuation(char32_t c) noexcept {
    // The reference counts every printable non-alphanumeric ASCII character as punctuation
    // ("$", "+", "^", "`" are not Unicode P*), so that they always split words.
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
    if (c < 0x80) return false;
    return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_P_MASK) != 0;
}

bool isCjkIdeograph(char32_t c) noexcept {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool isNonSpacingMark(char32_t c) noexcept { return c >= 0x80 && category(c) == U_NON_SPACING_MARK; }

bool isPythonSpace(char32_t c) noexcept {
    // The characters of bidirectional class WS, B or S or of category Zs, as CPython lists them.
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace linkscope::encoder::detail
