#pragma once
// PRIVATE to the project store: how a store keeps a knowledge base's UMLS filters (semantic
// types, sources, languages) in one text column, as one JSON object.
#include <string>

#include "project/project_manifest.h"

namespace linkscope::project {

/// The filters of `kb` as one JSON object; "" when there are none.
std::string filtersText(const KbReference& kb);

/// Fills the filters of `kb` from filtersText()'s text ("" leaves them empty). Throws ParseError
/// naming `store` when the text is not what filtersText() writes.
void readFilters(const std::string& text, KbReference& kb, const std::string& store);

}  // namespace linkscope::project
