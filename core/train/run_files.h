#pragma once
// How a run folder (run_directory.h) writes its files: in place, never through a symbolic link.
//
// The rule: the run folder itself (the final component of the path given: its parents may be
// links) and every entry of it that a run writes, replaces, cuts or removes (preset.json,
// run.json, log.jsonl, dev-report.json, model/, checkpoint/ and their .new / .old copies) must not
// be a symbolic link. A run refuses to start or resume otherwise, naming the link; the log is
// appended to and cut through descriptors opened with O_NOFOLLOW, so a link planted while the run
// is going fails that write rather than reaching the file it names. Torch-free.
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace linkscope::train {

/// Throws Error naming `path` when it is a symbolic link (a dangling one included); nothing
/// when it is anything else or does not exist.
void refuseLink(const std::filesystem::path& path);

/// The rule above for the folder `run` and the entries a run writes; Error naming the first link.
void refuseLinksInRun(const std::filesystem::path& run);

/// Appends `text` to `file` (created, 0666 less the umask, when missing) through a descriptor
/// opened with O_NOFOLLOW | O_APPEND. Error naming the file when it is a link or not a regular
/// file, or when the write fails.
void appendToRunFile(const std::filesystem::path& file, std::string_view text);

/// The size of the regular file `file`, 0 when it does not exist; Error naming it when it is a
/// link or not a regular file.
std::uintmax_t runFileSize(const std::filesystem::path& file);

/// Cuts the regular file `file` to `size` bytes (no longer than it is: Error otherwise) through a
/// descriptor opened with O_NOFOLLOW; Error naming it when it is a link or not a regular file.
/// A file with other names (hard links, e.g. a run folder copied with `cp -al`) is not cut in
/// place: this name gets a new file of those bytes, and the other names keep theirs.
void truncateRunFile(const std::filesystem::path& file, std::uintmax_t size);

}  // namespace linkscope::train
