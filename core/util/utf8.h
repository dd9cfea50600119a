#pragma once
// UTF-8 helpers used by every reader: corpora and vocabularies must be valid UTF-8, and
// PubTator offsets count characters (code points), not bytes.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace linkscope::utf8 {

/// Byte offset of the first byte that does not start a well-formed UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF count as ill-formed), or nullopt.
std::optional<std::size_t> firstInvalidByte(std::string_view text) noexcept;

inline bool isValid(std::string_view text) noexcept { return !firstInvalidByte(text).has_value(); }

/// Number of code points in valid UTF-8 text.
std::size_t length(std::string_view text) noexcept;

/// Byte offset of every code point, plus one entry for the end: result[i] is the byte at which
/// character i starts, result[length(text)] == text.size(). Text must be valid UTF-8.
std::vector<std::size_t> characterOffsets(std::string_view text);

/// True when every byte is ASCII (then characters and bytes coincide).
bool isAscii(std::string_view text) noexcept;

/// Decodes the code point starting at byte `at` of text already checked to be valid UTF-8 and
/// advances `at` past it. Inline: tokenizers and analyzers call it once per character.
inline char32_t decodeValid(std::string_view text, std::size_t& at) noexcept {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80) {
        ++at;
        return lead;
    }
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    char32_t cp = lead & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F);
    for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (byte(at + k) & 0x3F);
    at += length;
    return cp;
}

}  // namespace linkscope::utf8
