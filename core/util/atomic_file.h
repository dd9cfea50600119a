#pragma once
// Writing a file so that readers never see it half-written and a crash or power loss leaves
// either the old or the new content: the content goes to a temporary file beside the target
// (created with O_EXCL, so never someone else's file), which is flushed to disk, renamed over
// the target and made durable by syncing the folder, only on commit().
//
// - The target keeps its permission bits; a new file gets 0666 less the umask, as open() does.
// - A target that is a symbolic link is not replaced by a plain file: the file it points to is
//   written (atomically, beside that file), and the link stays.
// - The temporary name carries the writer's process id; a writer removes the temporaries of
//   its target left by processes that no longer run (a kill between open and commit).
#include <filesystem>
#include <fstream>

namespace linkscope {

class AtomicFileWriter {
public:
    /// Opens "<target>.tmp-<pid>-<random>" in the target's folder; throws Error when it cannot.
    explicit AtomicFileWriter(std::filesystem::path target);
    /// Removes the temporary file unless commit() succeeded.
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    std::ostream& stream() noexcept { return out_; }
    /// Flushes, fsyncs, renames over the target and fsyncs the folder; throws Error on any
    /// failure (and the target keeps its old content).
    void commit();

    /// The file that commit() replaces: the target, or the file a symbolic link target names.
    const std::filesystem::path& destination() const noexcept { return destination_; }

private:
    std::filesystem::path target_;       ///< as given, for messages
    std::filesystem::path destination_;  ///< what is replaced
    std::filesystem::path temporary_;
    std::ofstream out_;
    bool committed_ = false;
};

/// Flushes a file's content to disk (fsync); throws Error naming it on failure.
void syncFile(const std::filesystem::path& file);
/// Makes the entries of a folder durable (fsync of the folder), after a rename or a create.
void syncFolder(const std::filesystem::path& folder);

}  // namespace linkscope
