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

}  // namespace linkscope::utf8
