#include "util/atomic_file.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <random>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/file_descriptor.h"

namespace linkscope {
namespace {

namespace fs = std::filesystem;

std::string systemError() { return std::strerror(errno); }

/// A symbolic link is followed (to its final file, which may not exist yet) so that writing a
/// linked configuration file updates the file and keeps the link.
fs::path resolveDestination(const fs::path& target) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(target, ec))) return target;
    const fs::path resolved = fs::weakly_canonical(target, ec);
    if (ec) throw Error(target.string() + ": cannot follow the symbolic link: " + ec.message());
    return resolved;
}

/// Removes "<name>.tmp-<pid>-*" beside the destination whose process no longer runs: the
/// leftovers of a writer killed before commit(). Files of running processes are not touched.
void removeStaleTemporaries(const fs::path& destination) {
    const fs::path folder = destination.has_parent_path() ? destination.parent_path() : fs::path(".");
    const std::string prefix = destination.filename().string() + ".tmp-";
    std::error_code ec;
    fs::directory_iterator it(folder, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string rest = name.substr(prefix.size());
        const auto dash = rest.find('-');
        if (dash == std::string::npos || dash == 0 || dash > 9) continue;
        if (rest.find_first_not_of("0123456789") != dash) continue;
        const pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
        if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) {
            std::error_code ignored;
            fs::remove(it->path(), ignored);
        }
    }
}

}  // namespace

void syncFile(const fs::path& file) {
    FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(file.string() + ": cannot open to sync: " + systemError());
    if (::fsync(fd.get()) != 0) throw Error(file.string() + ": cannot flush to disk: " + systemError());
}

void syncFolder(const fs::path& folder) {
    const fs::path path = folder.empty() ? fs::path(".") : folder;
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(path.string() + ": cannot open the folder to sync it: " + systemError());
    // Some file systems refuse fsync on a folder (EINVAL): their renames are durable anyway.
    if (::fsync(fd.get()) != 0 && errno != EINVAL && errno != EROFS)
        throw Error(path.string() + ": cannot flush the folder to disk: " + systemError());
}

AtomicFileWriter::AtomicFileWriter(fs::path target)
    : target_(std::move(target)), destination_(resolveDestination(target_)) {
    removeStaleTemporaries(destination_);
    // The target's permission bits when it exists; otherwise open()'s default (0666 & ~umask).
    struct stat existing {};
    const bool keepMode = ::stat(destination_.c_str(), &existing) == 0;
    if (keepMode && !S_ISREG(existing.st_mode)) throw Error(target_.string() + ": exists and is not a regular file");

    std::random_device device;
    std::mt19937_64 names(device());
    for (int attempt = 0;; ++attempt) {
        temporary_ = destination_;
        temporary_ += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(names() % 1000000000u);
        // O_EXCL: a file of that name (or a link planted there) is never opened and truncated.
        FileDescriptor fd(::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666));
        if (fd.get() < 0) {
            if (errno == EEXIST && attempt < 16) continue;
            throw Error(target_.string() + ": cannot create file for writing: " + systemError());
        }
        if (keepMode && ::fchmod(fd.get(), existing.st_mode & 07777) != 0) {
            const std::string why = systemError();
            std::error_code ignored;
            fs::remove(temporary_, ignored);
            throw Error(target_.string() + ": cannot give the new file the old one's permissions: " + why);
        }
        break;
    }
    // The file is ours (created above); the stream writes it from the start.
    out_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!out_) {
        std::error_code ignored;
        fs::remove(temporary_, ignored);
        throw Error(target_.string() + ": cannot create file for writing");
    }
}

AtomicFileWriter::~AtomicFileWriter() {
    if (committed_) return;
    out_.close();
    std::error_code ignored;
    fs::remove(temporary_, ignored);
}

void AtomicFileWriter::commit() {
    out_.flush();
    const bool ok = static_cast<bool>(out_);
    out_.close();
    if (!ok || out_.fail()) throw Error(target_.string() + ": write failed (disk full?)");
    // The content reaches the disk before the rename makes it the target: after a power loss
    // the target is the old file or the whole new one, never an empty or partial one.
    syncFile(temporary_);
    std::error_code ec;
    fs::rename(temporary_, destination_, ec);
    if (ec) throw Error(target_.string() + ": cannot replace file: " + ec.message());
    committed_ = true;
    syncFolder(destination_.parent_path());
}

}  // namespace linkscope
