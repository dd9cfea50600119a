#include "train/run_files.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "train/run_directory.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_descriptor.h"

namespace linkscope::train {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void failLink(const fs::path& path) {
    throw Error(path.string() +
                ": is a symbolic link; a run folder's files are written in place, never through a link");
}

// Opens `file` with O_NOFOLLOW (and O_NONBLOCK, so that a FIFO planted there does not wait) and
// checks that it is a regular file.
FileDescriptor openRegular(const fs::path& file, int flags, const char* purpose) {
    FileDescriptor fd(::open(file.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
    if (fd.get() < 0) {
        if (errno == ELOOP) failLink(file);
        throw Error(file.string() + ": cannot open " + purpose + ": " + std::strerror(errno));
    }
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0)
        throw Error(file.string() + ": cannot read its status: " + std::strerror(errno));
    if (!S_ISREG(status.st_mode)) throw Error(file.string() + ": is not a regular file");
    return fd;
}

}  // namespace

void refuseLink(const fs::path& path) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) failLink(path);
}

void refuseLinksInRun(const fs::path& run) {
    // A trailing separator ("runs/a/") would make symlink_status follow the link.
    refuseLink(run.has_filename() ? run : run.parent_path());
    for (const fs::path& file : {presetFile(run), runInfoFile(run), logFile(run), devReportFile(run)}) refuseLink(file);
    for (const fs::path& folder : {modelDirectory(run), checkpointDirectory(run)}) {
        refuseLink(folder);
        refuseLink(fs::path(folder).concat(".new"));
        refuseLink(fs::path(folder).concat(".old"));
    }
}

void appendToRunFile(const fs::path& file, std::string_view text) {
    FileDescriptor fd = openRegular(file, O_WRONLY | O_APPEND | O_CREAT, "to append to it");
    while (!text.empty()) {
        const ssize_t written = ::write(fd.get(), text.data(), text.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) throw Error(file.string() + ": cannot append: " + std::strerror(errno));
        text.remove_prefix(static_cast<std::size_t>(written));
    }
    if (fd.close() != 0) throw Error(file.string() + ": cannot append: " + std::strerror(errno));
}

std::uintmax_t runFileSize(const fs::path& file) {
    struct stat status {};
    if (::lstat(file.c_str(), &status) != 0) {
        if (errno == ENOENT) return 0;
        throw Error(file.string() + ": cannot read its status: " + std::strerror(errno));
    }
    if (S_ISLNK(status.st_mode)) failLink(file);
    if (!S_ISREG(status.st_mode)) throw Error(file.string() + ": is not a regular file");
    return static_cast<std::uintmax_t>(status.st_size);
}

void truncateRunFile(const fs::path& file, std::uintmax_t size) {
    FileDescriptor fd = openRegular(file, O_RDWR, "to cut it");
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0 || static_cast<std::uintmax_t>(status.st_size) < size)
        throw Error(file.string() + ": holds fewer than " + std::to_string(size) + " bytes, cannot be cut to that");
    if (status.st_nlink > 1) {
        // Other names (hard links) of the file keep their content: this name gets a copy of
        // the first `size` bytes instead, written beside and renamed over it.
        std::string kept(size, '\0');
        std::size_t at = 0;
        while (at < kept.size()) {
            const ssize_t got = ::pread(fd.get(), kept.data() + at, kept.size() - at, static_cast<off_t>(at));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) throw Error(file.string() + ": cannot read it to cut it: " + std::strerror(errno));
            at += static_cast<std::size_t>(got);
        }
        AtomicFileWriter writer(file);
        writer.stream() << kept;
        writer.commit();
        return;
    }
    if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
        throw Error(file.string() + ": cannot cut it: " + std::strerror(errno));
}

}  // namespace linkscope::train
