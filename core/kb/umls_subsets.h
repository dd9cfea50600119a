#pragma once
// Named subsets of UMLS that users ask for by name. "st21pv" is MedMentions' ST21pv (21 semantic
// types and preferred vocabularies, Mohan & Li 2019): the 21 TUIs below, each with its
// descendants in the semantic type hierarchy, and concepts from 18 source vocabularies.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::kb {

/// The TUIs of a named set ("st21pv"), or nullopt when `name` names no set.
std::optional<std::span<const std::string_view>> namedSemanticTypes(std::string_view name) noexcept;
/// The SABs of a named set ("st21pv"), or nullopt when `name` names no set.
std::optional<std::span<const std::string_view>> namedSources(std::string_view name) noexcept;

/// Splits comma-separated entries, drops blanks, replaces set names by their TUIs and checks that
/// every remaining entry is a TUI ("T" and three digits); throws Error naming the first that is
/// not. The result keeps the first occurrence of each TUI, in order.
std::vector<std::string> semanticTypeFilter(std::span<const std::string> entries);
/// The same for source vocabularies: set names replaced by their SABs, commas split, duplicates
/// dropped. SABs are not checked against a list (every release adds some).
std::vector<std::string> sourceFilter(std::span<const std::string> entries);
/// Commas split, blanks and duplicates dropped (LAT values such as ENG, FRE).
std::vector<std::string> languageFilter(std::span<const std::string> entries);

/// True when `tui` is a semantic type id: 'T' followed by three digits.
bool isTui(std::string_view tui) noexcept;

}  // namespace linkscope::kb
