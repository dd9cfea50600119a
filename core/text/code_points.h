#pragma once
// Internal to core/text: UTF-8 text as a sequence of code points that remember their byte
// positions, and the few Unicode character classes the text layer needs. The algorithms of this
// layer (abbreviations, composite splitting) reason about characters, while callers hold UTF-8
// strings and offsets; keeping both positions avoids converting back and forth.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::text::detail {

struct CodePoint {
    char32_t value = 0;
    std::size_t byteBegin = 0;  ///< first byte of the character in the UTF-8 text
    std::size_t byteEnd = 0;    ///< one past its last byte
};

/// Decodes valid UTF-8; throws linkscope::Error naming the byte offset of an ill-formed sequence.
std::vector<CodePoint> decode(std::string_view utf8);

/// Appends the UTF-8 encoding of one code point.
void appendUtf8(std::string& out, char32_t c);

bool isWhiteSpace(char32_t c) noexcept;       ///< Unicode White_Space property
bool isLetterOrDigit(char32_t c) noexcept;    ///< letters (L*) and decimal digits (Nd)
bool isLetter(char32_t c) noexcept;           ///< general category L*
bool isUpperCase(char32_t c) noexcept;        ///< general category Lu (Java's Character.isUpperCase)
bool isLowerCase(char32_t c) noexcept;        ///< general category Ll
char32_t toLowerSimple(char32_t c) noexcept;  ///< one-to-one lower-case mapping

}  // namespace linkscope::text::detail
