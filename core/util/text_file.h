#pragma once
// Text files read whole (JSON files, BioC XML, brat .txt files): through LineReader (gzip,
// UTF-8 check, a missing file or a FIFO named with its line), joined with "\n", within a bound
// on the decompressed bytes that is checked as the text is read, before it is held.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace linkscope {

/// Text files read whole are refused beyond this (once decompressed) by default. The JSON files
/// of the engine (config.json, tokenizer files, manifests, presets, run files) are kilobytes;
/// nlohmann holds about 10 to 20 bytes per byte of text, so 64 MiB bounds a reader near 1 GB.
/// BioC XML passes its own, larger bound.
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{64} << 20;

/// A gzip file read whole is refused once it expands past this many times its compressed size
/// (or past kGzipTextAlwaysAllowed, whichever is more), whatever maxBytes allows. Text formats
/// compress three to ten times (PubTator, BioC XML of abstracts, JSON); a gzip bomb compresses
/// a thousand times. Without this a reader holding the text (and a tree built over it) needs
/// memory in proportion to what a small gzip expands to; with it, in proportion to the gzip.
/// A genuine file beyond it is read once decompressed (its own size is its bound).
inline constexpr std::size_t kMaxGzipExpansion = 32;
inline constexpr std::size_t kGzipTextAlwaysAllowed = std::size_t{16} << 20;

/// The file's lines joined with "\n" (no newline after the last), so that an error at the end
/// of a truncated file is reported on its last line. Throws ParseError as LineReader does, and
/// when the text grows beyond maxBytes (checked as it is read, before it is held).
/// Memory: an uncompressed file's text is allocated once at its size; a gzip file's grows by
/// doubling up to maxBytes, so the peak is at most three times the text (old and new block
/// during a growth), and never more than about 3 x maxBytes. A gzip file's text is at most
/// max(kMaxGzipExpansion x its compressed size, kGzipTextAlwaysAllowed), refused as it is read.
std::string readTextFile(const std::filesystem::path& file, std::size_t maxBytes = kMaxTextFileBytes);

/// The same text in one block of memory that a parser may modify in place (pugixml's
/// load_buffer_inplace). The block grows with realloc, which moves a large block by remapping
/// its pages rather than copying them: the peak is the text itself plus one line.
class TextBuffer {
public:
    TextBuffer() = default;
    char* data() noexcept { return data_.get(); }
    const char* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    std::string_view view() const noexcept { return {data_.get(), size_}; }

    /// Appends `text`, growing the block to at least `size() + text.size()` and at most
    /// `capacityLimit` (more is only asked for when the text needs it). Throws std::bad_alloc.
    void append(std::string_view text, std::size_t capacityLimit);
    /// Sets the capacity to at least `bytes` (a known final size: one allocation).
    void reserve(std::size_t bytes);

private:
    struct Free {
        void operator()(char* block) const noexcept;
    };
    std::unique_ptr<char, Free> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// readTextFile into a TextBuffer (same text, same errors, same bound).
TextBuffer readTextBuffer(const std::filesystem::path& file, std::size_t maxBytes = kMaxTextFileBytes);

}  // namespace linkscope
