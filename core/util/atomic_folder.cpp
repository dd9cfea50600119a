#include "util/atomic_folder.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_descriptor.h"

namespace linkscope {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStagingTag = ".linkscope-staging-";
constexpr const char* kRetiredTag = ".linkscope-retired-";

std::string systemError() { return std::strerror(errno); }

/// The output as an absolute path with a file name ("out/", "out/." and "." name the folder).
fs::path absoluteOutput(const fs::path& output) {
    if (output.empty()) throw Error("no output folder given");
    fs::path path = fs::absolute(output);
    while (path.has_parent_path() && path != path.root_path() && (path.filename().empty() || path.filename() == "."))
        path = path.parent_path();
    if (path.filename() == "..") path = fs::weakly_canonical(path);
    if (path == path.root_path() || path.filename().empty())
        throw Error(output.string() + ": the root folder cannot be replaced as a whole");
    return path;
}

/// A symbolic link output is followed to the folder it names (which may not exist yet): that
/// folder is replaced and the link stays.
fs::path resolveDestination(const fs::path& output, fs::path path) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    if (fs::exists(path, ec)) {
        const fs::path resolved = fs::canonical(path, ec);
        if (ec) throw Error(output.string() + ": cannot follow the symbolic link: " + ec.message());
        return resolved;
    }
    // A dangling link: followed link by link to the path that the swap will create.
    for (int hops = 0; fs::is_symlink(fs::symlink_status(path, ec)); ++hops) {
        if (hops == 40) throw Error(output.string() + ": too many levels of symbolic links");
        const fs::path target = fs::read_symlink(path, ec);
        if (ec) throw Error(output.string() + ": cannot read the symbolic link: " + ec.message());
        path = target.is_absolute() ? target : path.parent_path() / target;
        path = fs::weakly_canonical(path.parent_path()) / path.filename();
    }
    return absoluteOutput(path);
}

bool processGone(pid_t pid) { return pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH); }

/// The process id in "<prefix><pid>-<random>", when `name` has that form.
std::optional<pid_t> writerOf(const std::string& name, const std::string& prefix) {
    if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    const std::string rest = name.substr(prefix.size());
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 9) return std::nullopt;
    if (rest.find_first_not_of("0123456789") != dash) return std::nullopt;
    if (dash + 1 == rest.size() || rest.find_first_not_of("0123456789", dash + 1) != std::string::npos)
        return std::nullopt;
    return static_cast<pid_t>(std::stol(rest.substr(0, dash)));
}

bool entryExists(const fs::path& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

/// What killed writers of `destination` left beside it: a retired old tree is put back when the
/// output is missing (a kill between the two renames of the fallback swap), else removed; staging
/// folders (a kill before the swap, or the old tree after it) are removed. Folders of writers
/// that still run are not touched.
void recoverKilledWriters(const fs::path& output, const fs::path& destination) {
    const fs::path parent = destination.parent_path();
    const std::string name = destination.filename().string();
    const std::string retired = "." + name + kRetiredTag;
    const std::string staging = "." + name + kStagingTag;
    for (const std::string& prefix : {retired, staging}) {
        std::error_code ec;
        fs::directory_iterator it(parent, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            const auto pid = writerOf(it->path().filename().string(), prefix);
            if (!pid || !processGone(*pid)) continue;
            if (prefix == retired && !entryExists(destination)) {
                if (::rename(it->path().c_str(), destination.c_str()) != 0)
                    throw Error(output.string() + ": cannot put back the folder a killed export left at " +
                                it->path().string() + ": " + systemError());
                syncFolder(parent);
                continue;
            }
            std::error_code ignored;
            fs::remove_all(it->path(), ignored);
        }
    }
}

/// A name "<parent>/.<name><tag><pid>-<random>" that does not exist yet.
fs::path freshSibling(const fs::path& destination, const char* tag, std::mt19937_64& names) {
    for (int attempt = 0; attempt < 64; ++attempt) {
        fs::path candidate =
            destination.parent_path() / ("." + destination.filename().string() + tag + std::to_string(::getpid()) +
                                         "-" + std::to_string(names() % 1000000000u));
        if (!entryExists(candidate)) return candidate;
    }
    throw Error(destination.string() + ": cannot find a free name beside it");
}

/// Fills `staging` with the tree of `source`: folders recreated with their attributes, plain
/// files hard-linked (copied and synced where the file system refuses), links copied as links.
void stageCopyOf(const fs::path& output, const fs::path& source, const fs::path& staging) {
    std::error_code ec;
    fs::recursive_directory_iterator it(source, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const fs::path& from = it->path();
        const fs::path to = staging / from.lexically_relative(source);
        const fs::file_status status = it->symlink_status(ec);
        if (ec) break;
        std::error_code step;
        if (fs::is_symlink(status)) {
            fs::copy_symlink(from, to, step);
        } else if (fs::is_directory(status)) {
            fs::create_directory(to, from, step);
        } else if (fs::is_regular_file(status)) {
            fs::create_hard_link(from, to, step);
            if (step) {
                step.clear();
                fs::copy_file(from, to, fs::copy_options::none, step);
                if (!step) syncFile(to);
            }
        } else {
            throw Error(output.string() + ": cannot stage the folder: " + from.string() +
                        " is neither a file, a folder nor a symbolic link");
        }
        if (step) throw Error(output.string() + ": cannot stage " + from.string() + ": " + step.message());
    }
    if (ec) throw Error(output.string() + ": cannot read the folder to stage it: " + ec.message());
}

/// Syncs the staged tree before the swap: every folder (its entries), and every file written into
/// it (one link: not a hard link to the old tree, whose files are on disk already). Past a few
/// files, one syncfs() of the file system replaces the syncs one by one: each of those would
/// commit the file system's journal on its own.
void syncTree(const fs::path& output, const fs::path& root) {
    constexpr std::size_t kFilesSyncedOneByOne = 16;
    std::vector<fs::path> folders{root}, files;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        struct stat info {};
        if (::lstat(it->path().c_str(), &info) != 0) continue;
        if (S_ISDIR(info.st_mode))
            folders.push_back(it->path());
        else if (S_ISREG(info.st_mode) && info.st_nlink == 1)
            files.push_back(it->path());
    }
    if (ec) throw Error(output.string() + ": cannot read the staged folder: " + ec.message());
    if (files.size() > kFilesSyncedOneByOne) {
        FileDescriptor fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (fd.get() >= 0 && ::syncfs(fd.get()) == 0) return;
        if (fd.get() < 0) throw Error(output.string() + ": cannot open the staged folder to sync it: " + systemError());
        throw Error(output.string() + ": cannot flush the staged folder to disk: " + systemError());
    }
    for (const auto& file : files) syncFile(file);
    for (const auto& folder : folders) syncFolder(folder);
}

}  // namespace

AtomicFolder::AtomicFolder(fs::path output) : output_(std::move(output)) {
    destination_ = resolveDestination(output_, absoluteOutput(output_));
    struct stat existing {};
    const bool present = ::lstat(destination_.c_str(), &existing) == 0;
    if (present && !S_ISDIR(existing.st_mode)) throw Error(output_.string() + ": exists and is not a folder");

    std::error_code ec;
    fs::create_directories(destination_.parent_path(), ec);
    if (ec) throw Error("cannot create folder " + destination_.parent_path().string() + ": " + ec.message());
    recoverKilledWriters(output_, destination_);
    // The output may have come back from a retired name just now.
    const bool hasOld = ::lstat(destination_.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode);

    std::random_device device;
    std::mt19937_64 names(device());
    for (int attempt = 0;; ++attempt) {
        staging_ = freshSibling(destination_, kStagingTag, names);
        if (::mkdir(staging_.c_str(), 0777) == 0) break;
        if (errno == EEXIST && attempt < 16) continue;
        throw Error(output_.string() + ": cannot create the staging folder " + staging_.string() + ": " +
                    systemError());
    }
    try {
        if (hasOld) {
            if (::chmod(staging_.c_str(), existing.st_mode & 07777) != 0)
                throw Error(output_.string() +
                            ": cannot give the staging folder the output's permissions: " + systemError());
            stageCopyOf(output_, destination_, staging_);
        }
    } catch (...) {
        std::error_code ignored;
        fs::remove_all(staging_, ignored);
        throw;
    }
}

AtomicFolder::~AtomicFolder() {
    // Before commit(): the unwanted staged tree. After: the old tree, when a failure after the
    // swap left it (commit() removes it otherwise).
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
}

void AtomicFolder::commit() {
    if (committed_) throw Error(output_.string() + ": the folder was already committed");
    syncTree(output_, staging_);
    const fs::path parent = destination_.parent_path();
    if (!entryExists(destination_)) {
        if (::rename(staging_.c_str(), destination_.c_str()) != 0)
            throw Error(output_.string() + ": cannot move the written folder into place: " + systemError());
        committed_ = true;
        syncFolder(parent);
        return;
    }
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, destination_.c_str(), RENAME_EXCHANGE) == 0) {
        committed_ = true;
        syncFolder(parent);
        std::error_code ignored;
        fs::remove_all(staging_, ignored);  // the old tree
        return;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        throw Error(output_.string() + ": cannot swap the written folder in: " + systemError());

    // No atomic exchange on this file system: two renames, the old tree kept whole under a
    // retired name until the new one is in place (see the header for what a kill between leaves).
    std::random_device device;
    std::mt19937_64 names(device());
    const fs::path retired = freshSibling(destination_, kRetiredTag, names);
    if (::rename(destination_.c_str(), retired.c_str()) != 0)
        throw Error(output_.string() + ": cannot move the old folder aside: " + systemError());
    if (::rename(staging_.c_str(), destination_.c_str()) != 0) {
        const std::string why = systemError();
        if (::rename(retired.c_str(), destination_.c_str()) != 0)
            throw Error(output_.string() + ": cannot move the written folder into place (" + why +
                        ") nor put the old one back from " + retired.string() + ": " + systemError());
        throw Error(output_.string() + ": cannot move the written folder into place: " + why);
    }
    committed_ = true;
    syncFolder(parent);
    std::error_code ignored;
    fs::remove_all(retired, ignored);
}

void writeStagedFile(const fs::path& path, std::string_view content) {
    struct stat old {};
    const bool replacing = ::lstat(path.c_str(), &old) == 0;
    if (replacing && S_ISLNK(old.st_mode)) {
        AtomicFileWriter writer(path);
        writer.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
        writer.commit();
        return;
    }
    if (replacing && !S_ISREG(old.st_mode)) throw Error(path.string() + ": exists and is not a regular file");
    // The staged entry may be the old file's other name: a new inode, never a write through it.
    if (replacing && ::unlink(path.c_str()) != 0) throw Error(path.string() + ": cannot replace: " + systemError());
    FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (fd.get() < 0) throw Error(path.string() + ": cannot create file for writing: " + systemError());
    if (replacing && ::fchmod(fd.get(), old.st_mode & 07777) != 0)
        throw Error(path.string() + ": cannot give the new file the old one's permissions: " + systemError());
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(path.string() + ": write failed: " + (n < 0 ? systemError() : "no progress"));
        written += static_cast<std::size_t>(n);
    }
    if (fd.close() != 0) throw Error(path.string() + ": write failed: " + systemError());
}

}  // namespace linkscope
