#pragma once
// The candidates a project shows before its ranker is built. Building the sparse index of a
// UMLS-size knowledge base (8 M names) takes long after the window opens (benchmarks/ui_stall);
// meanwhile a selected mention gets the entities one of whose names is its text, looked up in the
// KB's own name table (no index to build). The text is tried as written and in the case variants
// a name list commonly differs by (all lower case, first letter capitalised, every word
// capitalised as MeSH headings are, all upper case), ASCII letters only, so UTF-8 text is
// left intact.
//
// There is no ranking beyond "a name is the text": every row scores 1 and the entities come in
// the order of the variants, then the KB's; each entity once.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "curation/candidate_row.h"

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::curation {

/// The case variants tried, the text itself first, each once.
std::vector<std::string> nameCaseVariants(std::string_view text);

/// At most k entities with a name equal to `text` or one of its case variants.
std::vector<CandidateRow> exactNameCandidates(const kb::KnowledgeBase& kb, std::string_view text, std::size_t k);

}  // namespace linkscope::curation
