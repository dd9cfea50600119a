#include "util/json_file.h"

#include <algorithm>

#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope {
namespace {

// 1-based line of a parser position (nlohmann counts bytes from 1, pointing at the last byte read).
std::size_t lineOfByte(const std::string& text, std::size_t byte) {
    const std::size_t upTo = std::min(text.size(), byte > 0 ? byte - 1 : 0);
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upTo), '\n'));
}

}  // namespace

std::string readTextFile(const std::filesystem::path& file) {
    LineReader reader(file);
    std::string text, line;
    for (bool first = true; reader.next(line); first = false) {
        if (!first) text += '\n';
        text += line;
    }
    return text;
}

nlohmann::json parseJson(const std::string& text, const std::string& source) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw ParseError(source, lineOfByte(text, e.byte), std::string("not valid JSON: ") + e.what());
    } catch (const nlohmann::json::exception& e) {
        // A number out of range ("1e999") is reported as out_of_range, with no position.
        throw ParseError(source, 0, std::string("not valid JSON: ") + e.what());
    }
}

nlohmann::json readJsonFile(const std::filesystem::path& file) { return parseJson(readTextFile(file), file.string()); }

}  // namespace linkscope
