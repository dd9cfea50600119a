#include "corpus/concept_id.h"

#include <algorithm>
#include <cctype>

#include "corpus/id_list.h"
#include "util/error.h"

namespace linkscope {
namespace {

std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool allDigits(std::string_view s) noexcept {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// MeSH descriptors are D + 6 or 9 digits, supplementary concepts C + 6 or 9 digits; a UMLS CUI
// is C + exactly 7 digits, so the digit count tells the two apart.
bool isMeshId(std::string_view s) noexcept {
    if (s.size() < 2 || (s[0] != 'D' && s[0] != 'C')) return false;
    const auto digits = s.substr(1);
    return allDigits(digits) && (digits.size() == 6 || digits.size() == 9);
}
bool isUmlsCui(std::string_view s) noexcept { return s.size() == 8 && s[0] == 'C' && allDigits(s.substr(1)); }

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::optional<std::string> canonicalConceptId(std::string_view raw) {
    const auto id = trim(raw);
    if (id.empty() || id == "-1") return std::nullopt;
    if (isMeshId(id)) return "MESH:" + std::string(id);
    if (isUmlsCui(id)) return "UMLS:" + std::string(id);
    const auto colon = id.find(':');
    if (colon != std::string_view::npos && colon > 0) {
        const std::string prefix = upper(id.substr(0, colon));
        const auto rest = trim(id.substr(colon + 1));
        return prefix + ":" + std::string(rest);
    }
    return std::string(id);
}

std::string_view shortConceptId(std::string_view canonical) noexcept {
    if (canonical.starts_with("MESH:")) return canonical.substr(5);
    return canonical;
}

ConceptIdList parseConceptIdList(std::string_view column) {
    ConceptIdList result;
    const auto text = trim(column);
    if (text.empty() || text == "-1") {
        result.cuiLess = true;
        return result;
    }
    const bool hasBar = text.find('|') != std::string_view::npos;
    const bool hasPlus = text.find('+') != std::string_view::npos;
    if (hasBar && hasPlus) throw Error("identifier list mixes '|' and '+': \"" + std::string(text) + "\"");
    const char separator = hasBar ? '|' : '+';
    result.join = hasBar ? IdJoin::Alternative : hasPlus ? IdJoin::Conjunction : IdJoin::Single;
    for (const std::string_view part : splitIdList(text, separator)) {
        auto id = canonicalConceptId(part);
        if (!id) {
            // "-1" inside a composite marks one part as CUI-less; an empty part is a broken column.
            if (trim(part) == "-1")
                id = std::string("-1");
            else
                throw Error("empty identifier in \"" + std::string(text) + "\"");
        }
        result.ids.push_back(std::move(*id));
    }
    return result;
}

}  // namespace linkscope
