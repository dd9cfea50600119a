#pragma once
// How a project file stores the paths of the files it refers to: relative to the project
// file's folder when they lie below it (so that copying the folder keeps the project working),
// absolute otherwise (a shared KB elsewhere on the disk stays found when the folder moves).
#include <filesystem>
#include <string>

namespace linkscope::project {

/// The text to store for `path` (made absolute against the current folder first, lexically
/// normalized); "" for an empty path. Generic separators ('/').
std::string storedPath(const std::filesystem::path& path, const std::filesystem::path& projectFolder);

/// The absolute, lexically normalized path a stored text names; an empty path for "". Error
/// "holds a NUL character" for a text the operating system would read cut short (the caller
/// names the file and the field).
std::filesystem::path resolvedPath(const std::string& stored, const std::filesystem::path& projectFolder);

}  // namespace linkscope::project
