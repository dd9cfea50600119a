#pragma once
// Writing a folder of files (an export of several splits, a brat folder) so that the folder as a
// whole is replaced at once: a SIGKILL or a power loss leaves it entirely as it was or entirely
// as the writer left it, never some files new and some old.
//
// How: the files are written into a hidden sibling of the output folder (same parent, so the
// same file system), ".<name>.linkscope-staging-<pid>-<random>", which starts as a copy of the
// existing output made of hard links (sub-folders recreated, symbolic links copied as links, a
// file copied where the file system refuses a hard link). Writers replace files in it through
// AtomicFileWriter, which renames over the hard link: the old file, still in the live folder, is
// never modified (writeStagedFile() does the same faster, leaving the sync to commit()).
// commit() makes the staged tree durable (fsync of every folder in it, and of every file in it
// that is not a hard link to the old tree) and swaps
// it with the output in one rename: rename() when the output does not exist, else
// renameat2(RENAME_EXCHANGE); then it fsyncs the parent and removes the old tree (now at the
// staging name).
//
// Guarantees and limits:
// - Files of the output that the writer does not replace are kept (a brat annotation.conf, the
//   splits of an earlier export that this one does not write). Changes made to the output by
//   another process between construction and commit() are not: the swap puts back the tree as
//   it was when staging began, with the writer's files.
// - The output is a new folder after commit(): a process whose current folder was the output (a
//   shell that ran the export from inside it) is left in the old one, removed, until it changes
//   folder again.
// - An output that is a symbolic link to a folder stays a link; the folder it names is replaced.
// - A file inside the output that is a symbolic link is staged as the same link; a writer that
//   replaces it writes the file the link names (AtomicFileWriter's rule), outside this swap.
// - Only plain files, folders and symbolic links are staged: an output holding a FIFO, a socket or
//   a device is refused (Error naming it).
// - A staging folder left by a killed writer (its process no longer runs) is removed by the next
//   AtomicFolder of that output; so is the old tree a kill after the swap leaves there.
// - Where the file system has no RENAME_EXCHANGE (EINVAL, ENOSYS: some network and FUSE file
//   systems), the swap is two renames: the output to ".<name>.linkscope-retired-<pid>-<random>",
//   then the staged tree to the output. A kill between the two leaves the output absent and its
//   old tree whole under the retired name; the next AtomicFolder of that output renames it back
//   before anything else. Readers may see the output absent for that instant.
#include <filesystem>
#include <string_view>

namespace linkscope {

class AtomicFolder {
public:
    /// Removes what killed writers of `output` left, then creates the staging folder and fills it
    /// with hard links to the output's files (when the output exists). The output's parent
    /// folders are created when missing. Throws Error naming the path when the output exists and
    /// is not a folder (nor a link to one), or when staging fails.
    explicit AtomicFolder(std::filesystem::path output);
    /// Removes the staging folder unless commit() succeeded (the output stays as it was).
    ~AtomicFolder();
    AtomicFolder(const AtomicFolder&) = delete;
    AtomicFolder& operator=(const AtomicFolder&) = delete;

    /// The folder to write into, in place of the output. Replace files in it with
    /// AtomicFileWriter (never write an existing file in place: it is the live output's file).
    const std::filesystem::path& staging() const noexcept { return staging_; }
    /// The folder commit() replaces: the output, or the folder a symbolic link output names.
    const std::filesystem::path& destination() const noexcept { return destination_; }

    /// Syncs the staged tree and swaps it in; throws Error naming the output on failure (the
    /// output then keeps its old content).
    void commit();

private:
    std::filesystem::path output_;       ///< as given, for messages
    std::filesystem::path destination_;  ///< what is replaced (absolute)
    std::filesystem::path staging_;
    bool committed_ = false;
};

/// Writes `content` as the file `path` inside an AtomicFolder's staging folder: the entry there
/// (a hard link to the old file) is unlinked and a new file created in its place, with the old
/// file's permission bits, so the old file is never written. Not synced: AtomicFolder::commit()
/// syncs it. A kill or an error mid-write leaves a partial file only in the staging folder, which
/// is never swapped in. An entry that is a symbolic link is written through with
/// AtomicFileWriter, as elsewhere. Throws Error naming the file.
void writeStagedFile(const std::filesystem::path& path, std::string_view content);

}  // namespace linkscope
