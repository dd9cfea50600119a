#pragma once
// A document's text with a character <-> byte mapping, for checking or extracting many mentions
// of one document. ASCII text (the usual case) needs no table: characters are bytes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/document.h"

namespace linkscope {

class DocumentText {
public:
    /// `text` must be valid UTF-8 (LineReader guarantees it for everything read from files).
    explicit DocumentText(std::string text);
    explicit DocumentText(const Document& document) : DocumentText(document.text()) {}

    const std::string& str() const noexcept { return text_; }
    std::size_t characterCount() const noexcept { return characters_; }
    bool isAscii() const noexcept { return starts_.empty(); }

    /// Bytes of the characters [start, end), or nullopt unless start <= end <= characterCount().
    std::optional<ByteRange> byteRange(CharRange range) const noexcept;
    /// The text of characters [start, end), or nullopt when the range is not inside the text.
    std::optional<std::string_view> slice(CharRange range) const noexcept;
    /// Character index of the character that contains `byteOffset` (characterCount() at the end).
    std::size_t characterAt(std::size_t byteOffset) const noexcept;

private:
    std::string text_;
    std::vector<std::size_t> starts_;  ///< byte of each character + end; empty when ASCII
    std::size_t characters_ = 0;
};

}  // namespace linkscope
