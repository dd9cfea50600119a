#pragma once
// Line numbers of byte positions in a text, for readers whose parser reports byte offsets and
// modifies the text it parses (pugixml's in-place parsing writes terminators over it, so the
// text cannot be searched for its newlines afterwards).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace linkscope {

class NewlineIndex {
public:
    /// Records where `text` has its '\n' bytes. Memory: one bit per byte of text (an eighth of
    /// it) and 8 bytes per 32 KiB, whatever the number of lines.
    explicit NewlineIndex(std::string_view text);

    /// 1-based line of the byte at `offset` (one more than the '\n' before it); an offset past
    /// the end is on the last line.
    std::size_t lineOf(std::size_t offset) const noexcept;

private:
    static constexpr std::size_t kWordsPerBlock = 512;
    std::vector<std::uint64_t> bits_;         // bit b of word w: byte 64 w + b is '\n'
    std::vector<std::size_t> blockNewlines_;  // '\n' before each block of kWordsPerBlock words
    std::size_t size_ = 0;
};

}  // namespace linkscope
