#include "corpus/pubtator_lines.h"

#include <algorithm>
#include <charconv>

#include "util/error.h"

namespace linkscope::pubtator {
namespace {

bool isSpace(char c) noexcept { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'; }
bool isDigit(char c) noexcept { return c >= '0' && c <= '9'; }
bool isLetter(char c) noexcept { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

std::size_t parseOffset(std::string_view column, const char* what) {
    std::size_t value = 0;
    const auto* first = column.data();
    const auto* last = column.data() + column.size();
    const auto [end, ec] = std::from_chars(first, last, value);
    // from_chars accepts no sign and no spaces for unsigned types, so " 12", "-3" and "+3" fail.
    if (column.empty() || ec == std::errc::invalid_argument || end != last || !isDigit(column.front()))
        throw Error(std::string(what) + " offset " + quoteForMessage(column) + " is not a non-negative integer");
    if (ec == std::errc::result_out_of_range)
        throw Error(std::string(what) + " offset " + quoteForMessage(column) + " is too large");
    return value;
}

// An identifier with a space, comma or semicolon inside is a list in a separator PubTator does
// not use, or a damaged column; accepting it would invent a concept that exists nowhere.
void checkIdentifier(std::string_view id, std::string_view column) {
    const auto bad = std::find_if(id.begin(), id.end(), [](char c) {
        return isSpace(c) || c == ',' || c == ';' || static_cast<unsigned char>(c) < 0x20;
    });
    if (bad != id.end())
        throw Error("broken id column " + quoteForMessage(column) + ": identifier " + quoteForMessage(id) +
                    " contains " +
                    (*bad == ','   ? "','"
                     : *bad == ';' ? "';'"
                                   : "a space or control character") +
                    " (lists are joined by '|' or '+')");
}

// "T047" or "T047,T191": UMLS semantic type ids as MedMentions writes them.
std::vector<std::string> semanticTypesOf(std::string_view type) {
    std::vector<std::string> result;
    std::size_t start = 0;
    for (;;) {
        const auto comma = type.find(',', start);
        const auto part = type.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        const bool tui = part.size() == 4 && part[0] == 'T' && std::all_of(part.begin() + 1, part.end(), isDigit);
        if (!tui) return {};
        result.emplace_back(part);
        if (comma == std::string_view::npos) return result;
        start = comma + 1;
    }
}

std::vector<std::string> splitOnBar(std::string_view column) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        const auto bar = column.find('|', start);
        parts.emplace_back(column.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
        if (bar == std::string_view::npos) return parts;
        start = bar + 1;
    }
}

}  // namespace

std::string_view trimmed(std::string_view text) noexcept {
    while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
    return text;
}

std::string quoteForMessage(std::string_view text) {
    constexpr std::size_t limit = 80;
    if (text.size() <= limit) return "\"" + std::string(text) + "\"";
    std::size_t cut = limit;
    // Do not cut a UTF-8 sequence in half: back up to the start of a character.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return "\"" + std::string(text.substr(0, cut)) + "...\" (" + std::to_string(text.size()) + " bytes)";
}

ClassifiedLine classify(std::string_view line) noexcept {
    if (line.empty()) return {LineKind::Blank, {}, {}};
    if (trimmed(line).empty()) return {LineKind::WhitespaceOnly, {}, {}};
    const auto separator = line.find_first_of("|\t");
    if (separator == std::string_view::npos) return {};
    const auto pmid = line.substr(0, separator);
    if (line[separator] == '\t') return {LineKind::Annotation, pmid, {}};
    const auto after = line.substr(separator + 1);
    if (after.starts_with("t|")) return {LineKind::Title, pmid, after.substr(2)};
    if (after.starts_with("a|")) return {LineKind::Abstract, pmid, after.substr(2)};
    return {};
}

bool isValidPmid(std::string_view pmid) noexcept {
    return !pmid.empty() && std::all_of(pmid.begin(), pmid.end(), [](char c) {
        return isDigit(c) || isLetter(c) || c == '_' || c == '.' || c == '-';
    });
}

Columns splitColumns(std::string_view line) noexcept {
    Columns columns;
    std::size_t start = 0;
    for (;;) {
        const auto tab = line.find('\t', start);
        const auto item = line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
        if (columns.count < Columns::kMaxColumns) columns.items[columns.count] = item;
        ++columns.count;
        if (tab == std::string_view::npos) return columns;
        start = tab + 1;
    }
}

bool isRelation(const Columns& columns) noexcept {
    return columns.count >= 2 && !columns[1].empty() && isLetter(columns[1].front());
}

Mention parseMention(const Columns& columns) {
    if (columns.count < 6)
        throw Error("too few columns (" + std::to_string(columns.count) +
                    ") for a mention line: expected PMID, start, end, text, type, ids");
    if (columns.count > 7)
        throw Error("too many columns (" + std::to_string(columns.count) +
                    ") for a mention line: expected PMID, start, end, text, type, ids and at most "
                    "one column of individual mentions");
    Mention mention;
    mention.start = parseOffset(columns[1], "start");
    mention.end = parseOffset(columns[2], "end");
    mention.text = columns[3];
    if (columns[4].empty()) throw Error("empty type column");
    mention.type = columns[4];
    mention.semanticTypes = semanticTypesOf(columns[4]);
    mention.idColumn = columns[5];
    try {
        mention.ids = parseConceptIdList(columns[5]);
    } catch (const Error& e) {
        throw Error("broken id column " + quoteForMessage(columns[5]) + ": " + e.what());
    }
    for (const auto& id : mention.ids.ids) checkIdentifier(id, columns[5]);
    if (columns.count == 7) {
        mention.hasIndividualMentionColumn = true;
        if (!columns[6].empty()) mention.individualMentions = splitOnBar(columns[6]);
    }
    return mention;
}

Relation parseRelation(const Columns& columns) {
    if (columns.count < 4)
        throw Error("too few columns (" + std::to_string(columns.count) +
                    ") for a relation line: expected PMID, type and at least two arguments");
    if (columns.count > Columns::kMaxColumns)
        throw Error("too many columns (" + std::to_string(columns.count) + ") for a relation line");
    const auto type = columns[1];
    const bool typeOk =
        std::all_of(type.begin(), type.end(), [](char c) { return isLetter(c) || isDigit(c) || c == '_' || c == '-'; });
    if (!typeOk) throw Error("malformed relation type " + quoteForMessage(type));
    Relation relation;
    relation.type = type;
    for (std::size_t i = 2; i < columns.count; ++i) {
        const auto raw = columns[i];
        auto id = canonicalConceptId(raw);
        if (!id) {
            if (trimmed(raw) != "-1") throw Error("empty argument " + std::to_string(i - 1) + " in relation line");
            id = std::string("-1");
        }
        checkIdentifier(*id, raw);
        relation.arguments.push_back(std::move(*id));
        relation.rawArguments.emplace_back(raw);
    }
    return relation;
}

}  // namespace linkscope::pubtator
