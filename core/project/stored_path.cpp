#include "project/stored_path.h"

#include "util/error.h"

namespace linkscope::project {

std::string storedPath(const std::filesystem::path& path, const std::filesystem::path& projectFolder) {
    if (path.empty()) return {};
    const auto absolute = std::filesystem::absolute(path).lexically_normal();
    const auto relative = absolute.lexically_relative(projectFolder);
    // Below the folder: relative, with no ".." step ("." itself is the folder, kept as is).
    const bool below = !relative.empty() && *relative.begin() != "..";
    return (below ? relative : absolute).generic_string();
}

std::filesystem::path resolvedPath(const std::string& stored, const std::filesystem::path& projectFolder) {
    if (stored.empty()) return {};
    // The operating system reads a path up to its first NUL; every path of a project is refused
    // with one rather than opened cut short. The caller names the file and the field.
    if (stored.find('\0') != std::string::npos) throw Error("holds a NUL character");
    std::filesystem::path path(stored);
    if (path.is_relative()) path = projectFolder / path;
    path = path.lexically_normal();
    // "." (the folder itself) normalizes to "folder/": drop the empty last element.
    if (!path.has_filename() && path.has_relative_path()) path = path.parent_path();
    return path;
}

}  // namespace linkscope::project
