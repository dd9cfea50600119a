#pragma once
// Opening a file for reading: the one way every reader of the engine opens its input.
//
// A path may name anything: a FIFO (open() waits for a writer, read() for data, forever), a
// character device (/dev/zero never ends), a socket, a folder. A reader checks what the path
// names on the descriptor it then reads, so nothing can be swapped in between: InputFile opens
// with O_RDONLY | O_NONBLOCK | O_CLOEXEC (opening a FIFO without a writer does not wait),
// fstat()s the descriptor, refuses anything that is not a regular file with a ParseError naming
// the file and what it is, and only then clears O_NONBLOCK for ordinary blocking reads.
// Links are followed (a corpus may be a link to the shared data); what they lead to is checked.
#include <cstdint>
#include <filesystem>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

struct gzFile_s;  // zlib's gzFile, without including zlib.h here

namespace linkscope {

class InputFile {
public:
    /// Opens `path` for reading as described above. Errors are ParseError(path, 0, reason):
    /// "no such file", "is a folder, expected a file", "is a FIFO (named pipe), expected a
    /// regular file" (device, socket likewise), "cannot open for reading: <system error>". With
    /// `what` given (e.g. "the kNN datastore file") the reason reads "cannot open WHAT: reason".
    static InputFile open(const std::filesystem::path& path, std::string_view what = {});

    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile();

    int descriptor() const noexcept { return fd_; }
    /// The size fstat() gave when the file was opened.
    std::uint64_t size() const noexcept { return size_; }
    /// The path as given, for messages.
    const std::string& name() const noexcept { return name_; }
    /// Hands the descriptor to the caller (who closes it); this object no longer owns it.
    int release() noexcept;

private:
    InputFile(int fd, std::uint64_t size, std::string name) noexcept : fd_(fd), size_(size), name_(std::move(name)) {}
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::string name_;
};

/// Refuses (ParseError(path, 0, ...)) a path that is not a folder: missing, a file, a FIFO.
/// With `what` given the reason reads "cannot open WHAT: reason", as InputFile::open does.
void requireFolder(const std::filesystem::path& path, std::string_view what = {});

/// zlib's reader (plain files read as they are, gzip decompressed) on an InputFile's descriptor.
struct GzipFileCloser {
    void operator()(gzFile_s* file) const noexcept;
};
using GzipInput = std::unique_ptr<gzFile_s, GzipFileCloser>;

/// InputFile::open, then gzdopen on that descriptor. Same errors, and "cannot open for
/// reading" when zlib cannot allocate its state. `fileBytes`, when given, receives the size of
/// the file as stored (compressed or not).
GzipInput openGzipInput(const std::filesystem::path& path, std::string_view what = {},
                        std::uint64_t* fileBytes = nullptr);

/// A binary std::istream over an InputFile (seekable: tellg and seekg work as on an ifstream).
/// Construction throws what InputFile::open throws, so a stream that exists is open.
class InputFileStream : public std::istream {
public:
    /// `mode` may add std::ios::ate to start at the end (as std::ifstream does, for tellg()).
    explicit InputFileStream(const std::filesystem::path& path, std::string_view what = {},
                             std::ios::openmode mode = std::ios::binary);
    ~InputFileStream() override;
    InputFileStream(const InputFileStream&) = delete;
    InputFileStream& operator=(const InputFileStream&) = delete;

    /// The size fstat() gave when the file was opened.
    std::uint64_t fileSize() const noexcept;

private:
    class Buffer;
    std::unique_ptr<Buffer> buffer_;
};

}  // namespace linkscope
