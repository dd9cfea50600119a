#include "util/newline_index.h"

#include <algorithm>
#include <bit>

namespace linkscope {

NewlineIndex::NewlineIndex(std::string_view text) : bits_((text.size() + 63) / 64), size_(text.size()) {
    for (std::size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1))
        bits_[at / 64] |= std::uint64_t{1} << (at % 64);
    blockNewlines_.reserve(bits_.size() / kWordsPerBlock + 1);
    std::size_t before = 0;
    for (std::size_t word = 0; word < bits_.size(); ++word) {
        if (word % kWordsPerBlock == 0) blockNewlines_.push_back(before);
        before += static_cast<std::size_t>(std::popcount(bits_[word]));
    }
}

std::size_t NewlineIndex::lineOf(std::size_t offset) const noexcept {
    offset = std::min(offset, size_);
    const std::size_t word = offset / 64;
    if (bits_.empty()) return 1;
    const std::size_t block = std::min(word, bits_.size() - 1) / kWordsPerBlock;
    std::size_t newlines = blockNewlines_[block];
    const std::size_t end = std::min(word, bits_.size());
    for (std::size_t w = block * kWordsPerBlock; w < end; ++w)
        newlines += static_cast<std::size_t>(std::popcount(bits_[w]));
    if (word < bits_.size() && offset % 64 != 0) {
        const std::uint64_t below = (std::uint64_t{1} << (offset % 64)) - 1;
        newlines += static_cast<std::size_t>(std::popcount(bits_[word] & below));
    }
    return newlines + 1;
}

}  // namespace linkscope
