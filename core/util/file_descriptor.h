#pragma once
// A POSIX file descriptor owned by one object: closed when it goes out of scope, or now with
// close(), which reports what ::close() says (a deferred write error on some file systems).
#include <unistd.h>

#include <utility>

namespace linkscope {

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept {
        if (this != &other) {
            if (fd_ >= 0) ::close(fd_);
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    int get() const noexcept { return fd_; }
    /// Closes now; returns ::close()'s status (0 when there was nothing to close).
    int close() noexcept {
        const int status = fd_ >= 0 ? ::close(fd_) : 0;
        fd_ = -1;
        return status;
    }

private:
    int fd_;
};

}  // namespace linkscope
