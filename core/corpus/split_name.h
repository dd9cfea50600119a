#pragma once
// What may name a split ("train", "dev", "test", or any other): checked wherever a split name
// enters (a manifest, a project file, the CLI's --split-pmids).
#include <optional>
#include <string>
#include <string_view>

namespace linkscope {

/// Why `split` cannot name a split, or nullopt when it can. A split name becomes a file or folder
/// name of exports (SPLIT.pubtator.txt, SPLIT/ for brat), so it must be one path component:
/// 1 to 100 bytes, no '/', '\\', control character or NUL, not "." or "..".
std::optional<std::string> splitNameProblem(std::string_view split);

}  // namespace linkscope
