#include "text/spelling_map.h"

#include "text/code_points.h"
#include "util/line_reader.h"

namespace linkscope::text {
namespace {

std::string_view trimBlanks(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

bool containsWhiteSpace(std::string_view s) {
    for (const auto& cp : detail::decode(s))
        if (detail::isWhiteSpace(cp.value)) return true;
    return false;
}

}  // namespace

bool SpellingMap::add(std::string misspelling, std::string correction) {
    if (misspelling.empty()) throw Error("empty misspelling");
    if (correction.empty()) throw Error("empty correction for '" + misspelling + "'");
    if (containsWhiteSpace(misspelling))
        throw Error("misspelling '" + misspelling +
                    "' contains whitespace; corrections apply to single whitespace-separated tokens");
    const auto [it, inserted] = corrections_.try_emplace(std::move(misspelling), std::move(correction));
    if (!inserted && it->second != correction)
        throw Error("'" + it->first + "' already maps to '" + it->second + "', not '" + correction + "'");
    return inserted;
}

const std::string* SpellingMap::find(std::string_view token) const {
    const auto it = corrections_.find(token);
    return it == corrections_.end() ? nullptr : &it->second;
}

SpellingMap SpellingMap::load(const std::filesystem::path& path, std::vector<Diagnostic>* diagnostics) {
    SpellingMap map;
    // Line of first definition per misspelling, so that a conflict names both lines.
    std::unordered_map<std::string, std::size_t> firstLine;
    LineReaderOptions options;
    options.maxLineBytes = kMaxLineBytes;
    LineReader reader(path, options);
    std::string line;
    while (reader.next(line)) {
        if (trimBlanks(line).empty()) continue;
        const auto separator = line.find("||");
        if (separator == std::string::npos)
            reader.fail("expected 'misspelling||correction', found no '||' in \"" + line.substr(0, 80) + "\"");
        if (line.find("||", separator + 2) != std::string::npos)
            reader.fail("expected 'misspelling||correction', found more than one '||'");
        const std::string misspelling(trimBlanks(std::string_view(line).substr(0, separator)));
        const std::string correction(trimBlanks(std::string_view(line).substr(separator + 2)));
        if (misspelling.empty()) reader.fail("empty misspelling before '||'");
        if (correction.empty()) reader.fail("empty correction after '||'");
        try {
            const auto known = map.find(misspelling);
            if (known && *known != correction)
                reader.fail("'" + misspelling + "' maps to '" + correction + "' here but to '" + *known + "' at line " +
                            std::to_string(firstLine[misspelling]));
            if (!map.add(misspelling, correction)) {
                if (diagnostics)
                    diagnostics->push_back({reader.fileName(), reader.lineNumber(),
                                            "repeats the entry of line " + std::to_string(firstLine[misspelling]) +
                                                " ('" + misspelling + "||" + correction + "')"});
            } else {
                firstLine.emplace(misspelling, reader.lineNumber());
            }
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            reader.fail(e.what());
        }
    }
    // An empty file is almost always a wrong path or a failed download; loading it silently
    // would switch spelling correction off without anyone noticing.
    if (map.empty()) throw ParseError(reader.fileName(), 0, "no 'misspelling||correction' entries");
    return map;
}

}  // namespace linkscope::text
