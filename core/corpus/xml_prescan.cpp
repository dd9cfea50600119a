#include "corpus/xml_prescan.h"

#include <algorithm>
#include <cstdint>

namespace linkscope::xml {
namespace {

bool isXmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// XML 1.0, production [2] Char.
bool isXmlChar(std::uint32_t value) {
    return value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value <= 0xD7FF) ||
           (value >= 0xE000 && value <= 0xFFFD) || (value >= 0x10000 && value <= 0x10FFFF);
}

int digitValue(char c, bool hex) {
    if (c >= '0' && c <= '9') return c - '0';
    if (hex && c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The reference as the message shows it: whole when short, else its start.
std::string shown(std::string_view text, std::size_t at, std::size_t end) {
    constexpr std::size_t kShown = 32;
    const std::size_t length = end - at;
    return length <= kShown ? std::string(text.substr(at, length)) : std::string(text.substr(at, kShown)) + "...";
}

// Checks the reference that starts at text[at] == '&', text[at + 1] == '#'. Returns the offset
// just past it, or sets `problem`.
std::size_t checkReference(std::string_view text, std::size_t at, Prescan& result) {
    const bool hex = at + 2 < text.size() && text[at + 2] == 'x';
    std::size_t position = at + (hex ? 3 : 2);
    std::uint32_t value = 0;
    bool tooLarge = false;
    const std::size_t digitsStart = position;
    for (; position < text.size(); ++position) {
        const int digit = digitValue(text[position], hex);
        if (digit < 0) break;
        if (!tooLarge) {
            value = value * (hex ? 16u : 10u) + static_cast<std::uint32_t>(digit);
            tooLarge = value > 0x10FFFF;  // checked before the next digit can overflow 32 bits
        }
    }
    if (position == digitsStart || position >= text.size() || text[position] != ';') {
        const std::size_t end = std::min(text.size(), std::max(position, at + 2));
        result.problem.emplace(at, "not well-formed XML: malformed character reference " + shown(text, at, end) +
                                       " (expected &#DIGITS; or &#xHEXDIGITS;)");
        return text.size();
    }
    if (tooLarge || !isXmlChar(value)) {
        result.problem.emplace(at, "not well-formed XML: the character reference " + shown(text, at, position + 1) +
                                       " names a character XML does not allow (NUL, a surrogate, a control "
                                       "character or beyond U+10FFFF)");
        return text.size();
    }
    return position + 1;
}

// Past the first `terminator` at or after `from` (the end of the text when there is none).
std::size_t skipPast(std::string_view text, std::size_t from, std::string_view terminator) {
    const std::size_t found = text.find(terminator, from);
    return found == std::string_view::npos ? text.size() : found + terminator.size();
}

}  // namespace

Prescan prescan(std::string_view text) {
    Prescan result;
    bool runHasText = false, runNonEmpty = false, afterStartTag = false;
    std::size_t at = 0;
    while (at < text.size() && !result.problem) {
        const char c = text[at];
        if (c == '&') {
            runHasText = runNonEmpty = true;
            at = at + 1 < text.size() && text[at + 1] == '#' ? checkReference(text, at, result) : at + 1;
            continue;
        }
        if (c != '<') {
            runNonEmpty = true;
            runHasText = runHasText || !isXmlSpace(c);
            ++at;
            continue;
        }
        // The run of character data before this '<': a text node when it has text, or when it
        // is the only content of an element (kept by parse_ws_pcdata_single).
        const bool closing = at + 1 < text.size() && text[at + 1] == '/';
        if (runHasText || (runNonEmpty && afterStartTag && closing)) ++result.textRuns;
        runHasText = runNonEmpty = false;
        afterStartTag = false;
        const std::string_view rest = text.substr(at);
        if (rest.starts_with("<![CDATA[")) {
            ++result.textRuns;
            at = skipPast(text, at + 9, "]]>");
        } else if (rest.starts_with("<!--")) {
            at = skipPast(text, at + 4, "-->");
        } else if (rest.starts_with("<?")) {
            at = skipPast(text, at + 2, "?>");
        } else if (rest.starts_with("<!")) {
            at = skipPast(text, at + 2, ">");
        } else if (closing) {
            at = skipPast(text, at + 2, ">");
        } else {
            // A start tag: attributes counted by their '=', references in their values checked.
            ++result.elements;
            char quote = 0;
            for (++at; at < text.size() && !result.problem; ++at) {
                const char t = text[at];
                if (quote) {
                    if (t == quote)
                        quote = 0;
                    else if (t == '&' && at + 1 < text.size() && text[at + 1] == '#')
                        at = checkReference(text, at, result) - 1;
                } else if (t == '"' || t == '\'') {
                    quote = t;
                } else if (t == '=') {
                    ++result.attributes;
                } else if (t == '>') {
                    afterStartTag = text[at - 1] != '/';
                    ++at;
                    break;
                }
            }
        }
    }
    if (runHasText) ++result.textRuns;
    return result;
}

}  // namespace linkscope::xml
