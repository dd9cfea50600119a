#include "util/json_file.h"

#include <algorithm>

#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope {
namespace {

// 1-based line of a parser position (nlohmann counts bytes from 1, pointing at the last byte read).
std::size_t lineOfByte(const std::string& text, std::size_t byte) {
    const std::size_t upTo = std::min(text.size(), byte > 0 ? byte - 1 : 0);
    return 1 +
           static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upTo), '\n'));
}

// The line at which the nesting of `text` first exceeds `maxDepth` (strings skipped); the line
// of the end when it never does. Only run when the parser has already found it too deep.
std::size_t lineOfDepth(const std::string& text, int maxDepth) {
    std::size_t line = 1;
    int depth = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (c == '\n') ++line;
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '[' || c == '{') {
            if (++depth > maxDepth) return line;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return line;
}

std::string depthMessage() { return "not valid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"; }

/// Thrown by parseJson's callback, caught by parseJson itself, which knows the text for the line.
struct TooDeep {};

}  // namespace

void checkJsonDepth(int depth, const std::string& source) {
    if (depth > kMaxJsonDepth) throw ParseError(source, 0, depthMessage());
}

std::string briefJson(const nlohmann::json& value, std::size_t shown) {
    if (value.is_array()) return "an array of " + std::to_string(value.size()) + " values";
    if (value.is_object()) return "an object of " + std::to_string(value.size()) + " keys";
    std::string text = value.is_string() ? nlohmann::json(value.get_ref<const std::string&>().substr(0, shown))
                                               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                                         : value.dump();
    if (text.size() > shown) text = text.substr(0, shown) + "...";
    return text;
}

nlohmann::json parseJson(const std::string& text, const std::string& source) {
    try {
        const nlohmann::json::parser_callback_t bounded = [](int depth, nlohmann::json::parse_event_t,
                                                             nlohmann::json&) {
            if (depth > kMaxJsonDepth) throw TooDeep{};
            return true;
        };
        return nlohmann::json::parse(text, bounded);
    } catch (const TooDeep&) {
        throw ParseError(source, lineOfDepth(text, kMaxJsonDepth), depthMessage());
    } catch (const nlohmann::json::parse_error& e) {
        throw ParseError(source, lineOfByte(text, e.byte), std::string("not valid JSON: ") + e.what());
    } catch (const nlohmann::json::exception& e) {
        // A number out of range ("1e999") is reported as out_of_range, with no position.
        throw ParseError(source, 0, std::string("not valid JSON: ") + e.what());
    }
}

nlohmann::json parseJsonLine(const std::string& text, const LineReader& reader) {
    try {
        return parseJson(text, reader.fileName());
    } catch (const ParseError& e) {
        reader.fail(e.message());
    }
}

nlohmann::json readJsonFile(const std::filesystem::path& file) { return parseJson(readTextFile(file), file.string()); }

}  // namespace linkscope
