#pragma once
// Splitting a list joined by '|' (or '+'): the one splitter of the engine. parseConceptIdList
// (corpus/concept_id.h) reads a gold id column with it; a decision's link ("A|B", the ids a
// curator chose) and the query builder's joined mention parts are split with it too.
#include <string_view>
#include <vector>

namespace linkscope {

/// The parts of `list` between separators, as written (not trimmed, not canonicalized) and in
/// order. Empty parts are kept: "" gives one empty part, "A||B" gives "A", "", "B"; a reader that
/// wants ids only drops them. The parts view `list`.
std::vector<std::string_view> splitIdList(std::string_view list, char separator = '|');

}  // namespace linkscope
