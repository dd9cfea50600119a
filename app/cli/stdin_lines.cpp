#include "stdin_lines.h"

#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::cli {

std::optional<std::string> StdinLines::next() {
    std::string line;
    if (!std::getline(*in_, line)) return std::nullopt;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (const auto bad = utf8::firstInvalidByte(line))
        throw ParseError("<stdin>", line_, "invalid UTF-8 at byte " + std::to_string(*bad + 1));
    return line;
}

std::vector<std::string> StdinLines::take(std::size_t count) {
    std::vector<std::string> lines;
    while (lines.size() < count) {
        auto line = next();
        if (!line) break;
        lines.push_back(std::move(*line));
    }
    return lines;
}

}  // namespace linkscope::cli
