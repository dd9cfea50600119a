#pragma once
// Line-by-line reading of text files, plain or gzip-compressed (detected from the content, not
// the name), with the line number kept for error messages. All readers of the engine use it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace linkscope {

struct LineReaderOptions {
    /// A line longer than this is an error rather than a reason to exhaust memory.
    std::size_t maxLineBytes = std::size_t{256} << 20;
    /// Refuse lines that are not well-formed UTF-8 (the error names the byte column).
    bool requireUtf8 = true;
    /// For a gzip file: refuse it once it has expanded to more than this many times its
    /// compressed size (and to more than gzipBytesAlwaysAllowed). 0: no such bound. Readers that
    /// hold what they read (a file read whole) set it, so that the memory a small gzip can ask
    /// for follows its size; line-by-line readers, which hold a line, need not.
    std::size_t maxGzipExpansion = 0;
    std::size_t gzipBytesAlwaysAllowed = 0;
};

class LineReader {
public:
    /// Opens the file through InputFile (util/input_file.h): a FIFO, a device or a folder is a
    /// ParseError (line 0), as is a file that cannot be opened; nothing waits on the path.
    /// Memory: the line bound (maxLineBytes) plus a read buffer, whatever the file's size.
    explicit LineReader(const std::filesystem::path& path, LineReaderOptions options = {});
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    /// Reads the next line without its "\n" or "\r\n" (or "\r", in a file with "\r" and no "\n"
    /// in its first megabyte), and without the UTF-8 byte-order mark at the start of the file.
    /// Returns false at the end of the file.
    /// Throws ParseError for a line that is too long, not UTF-8, or a damaged gzip stream.
    bool next(std::string& line);

    /// 1-based number of the line last returned by next() (0 before the first).
    std::size_t lineNumber() const noexcept { return lineNumber_; }
    /// The file as given by the caller, for messages.
    const std::string& fileName() const noexcept { return fileName_; }
    /// True when the file was gzip-compressed.
    bool compressed() const noexcept;
    /// The size of the file as stored (compressed or not), when it was opened.
    std::uint64_t fileBytes() const noexcept { return fileBytes_; }

    /// Throws ParseError at the current line.
    [[noreturn]] void fail(const std::string& message) const;

private:
    bool fill();
    void detectLineEnd();

    struct Stream;
    std::unique_ptr<Stream> stream_;
    std::string fileName_;
    LineReaderOptions options_;
    std::string buffer_;
    std::size_t position_ = 0;
    std::size_t lineNumber_ = 0;
    std::uint64_t fileBytes_ = 0;
    std::uint64_t decompressedBytes_ = 0;
    std::uint64_t maxDecompressedBytes_ = 0;  // 0: unbounded
    bool eof_ = false;
    bool lineEndKnown_ = false;
    char separator_ = '\n';
};

}  // namespace linkscope
