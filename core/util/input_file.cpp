#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <streambuf>
#include <vector>

#include "util/error.h"

namespace linkscope {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, std::string_view what, const std::string& reason) {
    throw ParseError(path.string(), 0, what.empty() ? reason : "cannot open " + std::string(what) + ": " + reason);
}

// What a path names when it is not a regular file, for the message.
std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

void closeQuietly(int fd) noexcept {
    if (fd >= 0) ::close(fd);
}

}  // namespace

InputFile InputFile::open(const std::filesystem::path& path, std::string_view what) {
    int fd = -1;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT) refuse(path, what, "no such file");
        if (error == ENOTDIR) refuse(path, what, "no such file (a part of its path is not a folder)");
        if (error == ELOOP) refuse(path, what, "too many levels of symbolic links (a link that leads to itself?)");
        refuse(path, what, std::string("cannot open for reading: ") + std::strerror(error));
    }
    struct stat status {};
    if (::fstat(fd, &status) != 0) {
        const int error = errno;
        closeQuietly(fd);
        refuse(path, what, std::string("cannot read its status: ") + std::strerror(error));
    }
    if (!S_ISREG(status.st_mode)) {
        closeQuietly(fd);
        if (S_ISDIR(status.st_mode)) refuse(path, what, "is a folder, expected a file");
        refuse(path, what, "is " + kindOf(status.st_mode) + ", expected a regular file");
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int error = errno;
        closeQuietly(fd);
        refuse(path, what, std::string("cannot open for reading: ") + std::strerror(error));
    }
    return InputFile(fd, static_cast<std::uint64_t>(status.st_size), path.string());
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), name_(std::move(other.name_)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
    if (this != &other) {
        closeQuietly(fd_);
        fd_ = std::exchange(other.fd_, -1);
        size_ = other.size_;
        name_ = std::move(other.name_);
    }
    return *this;
}

InputFile::~InputFile() { closeQuietly(fd_); }

int InputFile::release() noexcept { return std::exchange(fd_, -1); }

void requireFolder(const std::filesystem::path& path, std::string_view what) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR) refuse(path, what, "no such folder");
        refuse(path, what, std::string("cannot read its status: ") + std::strerror(error));
    }
    if (!S_ISDIR(status.st_mode))
        refuse(path, what,
               S_ISREG(status.st_mode) ? "is a file, expected a folder"
                                       : "is " + kindOf(status.st_mode) + ", expected a folder");
}

void GzipFileCloser::operator()(gzFile_s* file) const noexcept {
    if (file) gzclose(file);
}

GzipInput openGzipInput(const std::filesystem::path& path, std::string_view what, std::uint64_t* fileBytes) {
    InputFile input = InputFile::open(path, what);
    if (fileBytes) *fileBytes = input.size();
    gzFile file = gzdopen(input.descriptor(), "rb");
    if (!file) refuse(path, what, "cannot open for reading (zlib could not allocate its state)");
    input.release();  // gzclose closes it from now on
    return GzipInput(file);
}

// A read buffer over the descriptor; seeking drops the buffer and moves the descriptor.
class InputFileStream::Buffer : public std::streambuf {
public:
    explicit Buffer(InputFile file) : file_(std::move(file)), data_(std::size_t{1} << 16) {}

    const InputFile& file() const noexcept { return file_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const ssize_t got = readSome(data_.data(), data_.size());
        if (got <= 0) return traits_type::eof();
        setg(data_.data(), data_.data(), data_.data() + got);
        return traits_type::to_int_type(*gptr());
    }

    // Large reads go straight into the caller's memory, not through the buffer.
    std::streamsize xsgetn(char* out, std::streamsize count) override {
        std::streamsize done = 0;
        const auto buffered = std::min<std::streamsize>(count, egptr() - gptr());
        if (buffered > 0) {
            std::memcpy(out, gptr(), static_cast<std::size_t>(buffered));
            gbump(static_cast<int>(buffered));
            done = buffered;
        }
        while (done < count) {
            const auto want = static_cast<std::size_t>(count - done);
            if (want < data_.size()) {
                if (traits_type::eq_int_type(underflow(), traits_type::eof())) break;
                const auto take = std::min<std::streamsize>(count - done, egptr() - gptr());
                std::memcpy(out + done, gptr(), static_cast<std::size_t>(take));
                gbump(static_cast<int>(take));
                done += take;
                continue;
            }
            const ssize_t got = readSome(out + done, want);
            if (got <= 0) break;
            done += got;
        }
        return done;
    }

    pos_type seekoff(off_type offset, std::ios::seekdir direction, std::ios::openmode) override {
        int whence = SEEK_SET;
        if (direction == std::ios::cur) {
            whence = SEEK_CUR;
            offset -= egptr() - gptr();  // the descriptor is ahead of the reader by the buffered bytes
        } else if (direction == std::ios::end) {
            whence = SEEK_END;
        }
        const off_t at = ::lseek(file_.descriptor(), static_cast<off_t>(offset), whence);
        if (at < 0) return pos_type(off_type(-1));
        setg(data_.data(), data_.data(), data_.data());
        return pos_type(static_cast<off_type>(at));
    }

    pos_type seekpos(pos_type position, std::ios::openmode mode) override {
        return seekoff(off_type(position), std::ios::beg, mode);
    }

private:
    ssize_t readSome(char* out, std::size_t count) {
        ssize_t got = 0;
        do {
            got = ::read(file_.descriptor(), out, count);
        } while (got < 0 && errno == EINTR);
        return got;
    }

    InputFile file_;
    std::vector<char> data_;
};

InputFileStream::InputFileStream(const std::filesystem::path& path, std::string_view what, std::ios::openmode mode)
    : std::istream(nullptr), buffer_(std::make_unique<Buffer>(InputFile::open(path, what))) {
    rdbuf(buffer_.get());
    if (mode & std::ios::ate) seekg(0, std::ios::end);
}

InputFileStream::~InputFileStream() = default;

std::uint64_t InputFileStream::fileSize() const noexcept { return buffer_->file().size(); }

}  // namespace linkscope
