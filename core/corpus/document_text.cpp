#include "corpus/document_text.h"

#include <algorithm>

#include "util/utf8.h"

namespace linkscope {

DocumentText::DocumentText(std::string text) : text_(std::move(text)) {
    if (utf8::isAscii(text_)) {
        characters_ = text_.size();
    } else {
        starts_ = utf8::characterOffsets(text_);
        characters_ = starts_.size() - 1;
    }
}

std::optional<ByteRange> DocumentText::byteRange(CharRange range) const noexcept {
    if (range.start > range.end || range.end > characters_) return std::nullopt;
    if (starts_.empty()) return ByteRange{range.start, range.end};
    return ByteRange{starts_[range.start], starts_[range.end]};
}

std::optional<std::string_view> DocumentText::slice(CharRange range) const noexcept {
    const auto bytes = byteRange(range);
    if (!bytes) return std::nullopt;
    return std::string_view(text_).substr(bytes->begin, bytes->end - bytes->begin);
}

std::size_t DocumentText::characterAt(std::size_t byteOffset) const noexcept {
    if (byteOffset >= text_.size()) return characters_;
    if (starts_.empty()) return byteOffset;
    // The last character that starts at or before the byte.
    const auto after = std::upper_bound(starts_.begin(), starts_.end() - 1, byteOffset);
    return static_cast<std::size_t>(after - starts_.begin()) - 1;
}

}  // namespace linkscope
