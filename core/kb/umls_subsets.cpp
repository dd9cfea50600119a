#include "kb/umls_subsets.h"

#include <algorithm>
#include <array>

#include "util/error.h"

namespace linkscope::kb {
namespace {

// MedMentions' st21pv/README.md: the 21 semantic types (with their descendants) ...
constexpr std::array<std::string_view, 21> kSt21pvTypes{"T005", "T007", "T017", "T022", "T031", "T033", "T037",
                                                        "T038", "T058", "T062", "T074", "T082", "T091", "T092",
                                                        "T097", "T098", "T103", "T168", "T170", "T201", "T204"};
// ... and the 18 "preferred vocabularies" a concept must be mapped to.
constexpr std::array<std::string_view, 18> kSt21pvSources{
    "CPT", "FMA", "GO",   "HGNC", "HPO",  "ICD10", "ICD10CM", "ICD9CM", "MDR",
    "MSH", "MTH", "NCBI", "NCI",  "NDDF", "NDFRT", "OMIM",    "RXNORM", "SNOMEDCT_US"};

std::string_view trimmed(std::string_view text) noexcept {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Every comma-separated, non-blank piece of the entries, set names expanded by `expand`.
template <typename Expand>
std::vector<std::string> pieces(std::span<const std::string> entries, Expand expand) {
    std::vector<std::string> out;
    const auto add = [&out](std::string_view piece) {
        if (std::find(out.begin(), out.end(), piece) == out.end()) out.emplace_back(piece);
    };
    for (const auto& entry : entries) {
        std::string_view rest = entry;
        for (;;) {
            const auto comma = rest.find(',');
            const auto piece = trimmed(rest.substr(0, comma));
            if (!piece.empty()) {
                if (const auto set = expand(piece)) {
                    for (const auto member : *set) add(member);
                } else {
                    add(piece);
                }
            }
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    return out;
}

}  // namespace

std::optional<std::span<const std::string_view>> namedSemanticTypes(std::string_view name) noexcept {
    if (name == "st21pv") return std::span<const std::string_view>(kSt21pvTypes);
    return std::nullopt;
}

std::optional<std::span<const std::string_view>> namedSources(std::string_view name) noexcept {
    if (name == "st21pv") return std::span<const std::string_view>(kSt21pvSources);
    return std::nullopt;
}

bool isTui(std::string_view tui) noexcept {
    return tui.size() == 4 && tui[0] == 'T' &&
           std::all_of(tui.begin() + 1, tui.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> semanticTypeFilter(std::span<const std::string> entries) {
    auto types = pieces(entries, namedSemanticTypes);
    for (const auto& type : types)
        if (!isTui(type))
            throw Error("\"" + type + "\" is not a semantic type id (expected a TUI such as T047, or the set st21pv)");
    return types;
}

std::vector<std::string> sourceFilter(std::span<const std::string> entries) { return pieces(entries, namedSources); }

std::vector<std::string> languageFilter(std::span<const std::string> entries) {
    return pieces(entries, [](std::string_view) { return std::optional<std::span<const std::string_view>>(); });
}

}  // namespace linkscope::kb
