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

std::string readTextFile(const std::filesystem::path& file, std::size_t maxBytes) {
    LineReaderOptions options;
    options.maxLineBytes = std::min(options.maxLineBytes, maxBytes);
    LineReader reader(file, options);
    std::string text, line;
    for (bool first = true; reader.next(line); first = false) {
        if (text.size() + line.size() + 1 > maxBytes)
            reader.fail("the file is larger than " + std::to_string(maxBytes) + " bytes (decompressed), more than " +
                        "this reader holds in memory");
        if (!first) text += '\n';
        text += line;
    }
    return text;
}

void checkJsonDepth(int depth, const std::string& source) {
    if (depth > kMaxJsonDepth)
        throw ParseError(source, 0, "not valid JSON here: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

std::string briefJson(const nlohmann::json& value, std::size_t shown) {
    if (value.is_array()) return "an array of " + std::to_string(value.size()) + " values";
    if (value.is_object()) return "an object of " + std::to_string(value.size()) + " keys";
    std::string text = value.is_string() ? nlohmann::json(value.get_ref<const std::string&>().substr(0, shown)).dump(
                                               -1, ' ', false, nlohmann::json::error_handler_t::replace)
                                         : value.dump();
    if (text.size() > shown) text = text.substr(0, shown) + "...";
    return text;
}

nlohmann::json parseJson(const std::string& text, const std::string& source) {
    try {
        const nlohmann::json::parser_callback_t bounded = [&source](int depth, nlohmann::json::parse_event_t,
                                                                    nlohmann::json&) {
            checkJsonDepth(depth, source);
            return true;
        };
        return nlohmann::json::parse(text, bounded);
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
