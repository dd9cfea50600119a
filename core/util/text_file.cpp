#include "util/text_file.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "util/line_reader.h"

namespace linkscope {
namespace {

// Reads the joined lines of `file` into `sink` (append(std::string_view)), refusing more than
// maxBytes. `reserve(bytes)` is called once with the final size's upper bound when the file is
// not compressed (the joined text is never longer than the file: line ends only shrink).
template <typename Sink>
void readJoinedLines(const std::filesystem::path& file, std::size_t maxBytes, Sink& sink) {
    LineReaderOptions options;
    options.maxLineBytes = std::min(options.maxLineBytes, maxBytes);
    options.maxGzipExpansion = kMaxGzipExpansion;
    options.gzipBytesAlwaysAllowed = kGzipTextAlwaysAllowed;
    LineReader reader(file, options);
    if (!reader.compressed())
        sink.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(reader.fileBytes(), maxBytes)));
    std::string line;
    std::size_t size = 0;
    for (bool first = true; reader.next(line); first = false) {
        if (size + line.size() + 1 > maxBytes)
            reader.fail("the file is larger than " + std::to_string(maxBytes) + " bytes (decompressed), more than " +
                        "this reader holds in memory");
        if (!first) {
            sink.append("\n");
            ++size;
        }
        sink.append(line);
        size += line.size();
    }
}

struct StringSink {
    std::string& text;
    std::size_t maxBytes;
    void reserve(std::size_t bytes) { text.reserve(bytes); }
    void append(std::string_view piece) {
        const std::size_t needed = text.size() + piece.size();
        if (needed > text.capacity()) text.reserve(std::max(needed, std::min(maxBytes, 2 * text.capacity())));
        text.append(piece);
    }
};

struct BufferSink {
    TextBuffer& buffer;
    std::size_t maxBytes;
    void reserve(std::size_t bytes) { buffer.reserve(bytes); }
    void append(std::string_view piece) { buffer.append(piece, maxBytes); }
};

}  // namespace

void TextBuffer::Free::operator()(char* block) const noexcept { std::free(block); }

void TextBuffer::reserve(std::size_t bytes) {
    if (bytes <= capacity_) return;
    bytes = std::max<std::size_t>(bytes, 1);
    char* grown = static_cast<char*>(std::realloc(data_.get(), bytes));
    if (!grown) throw std::bad_alloc();
    (void)data_.release();
    data_.reset(grown);
    capacity_ = bytes;
}

void TextBuffer::append(std::string_view text, std::size_t capacityLimit) {
    const std::size_t needed = size_ + text.size();
    if (needed > capacity_)
        reserve(std::max(needed, std::min(capacityLimit, std::max<std::size_t>(2 * capacity_, 4096))));
    if (!text.empty()) std::memcpy(data_.get() + size_, text.data(), text.size());
    size_ = needed;
}

std::string readTextFile(const std::filesystem::path& file, std::size_t maxBytes) {
    std::string text;
    StringSink sink{text, maxBytes};
    readJoinedLines(file, maxBytes, sink);
    return text;
}

TextBuffer readTextBuffer(const std::filesystem::path& file, std::size_t maxBytes) {
    TextBuffer buffer;
    BufferSink sink{buffer, maxBytes};
    readJoinedLines(file, maxBytes, sink);
    return buffer;
}

}  // namespace linkscope
