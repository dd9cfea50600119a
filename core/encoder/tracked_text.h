#pragma once
// Text as code points that remember the bytes of the caller's input they came from. BERT's
// tokenizer lower-cases, composes (NFC) and decomposes (NFD, to drop accents) the text, which
// changes characters and their number; carrying the byte range through every step is what lets
// each word piece point back at the exact bytes of the input (private to the encoder).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::encoder::detail {

struct TrackedChar {
    char32_t codePoint = 0;
    std::size_t begin = 0;  ///< byte range [begin, end) of the input this character came from
    std::size_t end = 0;
};
using TrackedText = std::vector<TrackedChar>;

/// Decodes UTF-8; throws Error naming the byte offset for ill-formed input.
TrackedText decodeTracked(std::string_view text);

void appendUtf8(std::string& out, char32_t codePoint);
std::string toUtf8(std::span<const TrackedChar> chars);
/// Decodes valid UTF-8 (tokens already checked) to code points.
std::u32string toCodePoints(std::string_view text);

/// Python's str.lower() of one character: ICU's full lower-case mapping in the root locale
/// ("İ" gives "i" + U+0307). Every resulting character keeps the source's byte range.
void appendLowerCase(const TrackedChar& c, TrackedText& out);

enum class NormalForm { nfc, nfd };
/// Unicode normalization that keeps byte ranges: the text is cut where the normalizer has a
/// boundary, each piece normalized alone (the same result as the whole text); a piece whose
/// character count is unchanged maps one to one, any other maps every output character to the
/// whole piece's range (the conservative choice the offsets contract allows).
TrackedText normalize(std::span<const TrackedChar> text, NormalForm form);

// Character classes exactly as transformers' tokenization_bert.py defines them.
bool isBertControl(char32_t c) noexcept;      ///< category C* except \t \n \r (_is_control)
bool isBertWhitespace(char32_t c) noexcept;   ///< space \t \n \r or category Zs (_is_whitespace)
bool isBertPunctuation(char32_t c) noexcept;  ///< ASCII 33-47 58-64 91-96 123-126 or P* (_is_punctuation)
bool isCjkIdeograph(char32_t c) noexcept;     ///< the ranges of _is_chinese_char
bool isNonSpacingMark(char32_t c) noexcept;   ///< category Mn
/// Python's str.isspace(), which str.split() (whitespace_tokenize) cuts on.
bool isPythonSpace(char32_t c) noexcept;

}  // namespace linkscope::encoder::detail
