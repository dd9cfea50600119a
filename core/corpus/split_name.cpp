#include "corpus/split_name.h"

namespace linkscope {

std::optional<std::string> splitNameProblem(std::string_view split) {
    constexpr std::size_t kMaxSplitBytes = 100;
    const auto shown = [&] {
        std::string text;
        for (const char c : split.substr(0, 40)) {
            const auto byte = static_cast<unsigned char>(c);
            if (byte < 0x20 || byte == 0x7f) {
                constexpr char hex[] = "0123456789abcdef";
                text += std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
            } else {
                text += c;
            }
        }
        return "the split name \"" + text + (split.size() > 40 ? "...\"" : "\"");
    };
    if (split.empty()) return std::string("the split name is empty");
    if (split.size() > kMaxSplitBytes) return shown() + " is longer than " + std::to_string(kMaxSplitBytes) + " bytes";
    if (split == "." || split == "..") return shown() + " is not a file name (exports are named after the split)";
    for (const char c : split) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '/' || c == '\\')
            return shown() +
                   " holds a path separator (exports are named after the split and stay in the output folder)";
        if (byte < 0x20 || byte == 0x7f) return shown() + " holds a control character";
    }
    return std::nullopt;
}

}  // namespace linkscope
