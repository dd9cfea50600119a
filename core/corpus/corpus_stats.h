#pragma once
// Counts that describe a corpus (what `linkscope corpus stats` prints and the data tests check).
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus.h"

namespace linkscope {

struct CorpusStats {
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::map<std::string, std::size_t, std::less<>> mentionsByType;
    std::size_t alternativeMentions = 0;             ///< composite ids joined by '|' ("D001943|D010051")
    std::size_t conjunctionMentions = 0;             ///< composite ids joined by '+' ("D020279+D035583")
    std::size_t cuiLessMentions = 0;                 ///< id column "-1": no concept at all
    std::size_t mentionsWithCuiLessPart = 0;         ///< a composite with a "-1" part ("D002544|-1")
    std::size_t mentionsWithIndividualMentions = 0;  ///< a non-empty 7th column (BC5CDR)
    std::size_t mentionsWithInvalidOffsets = 0;      ///< kept by a lenient reader
    std::size_t relations = 0;
    std::map<std::string, std::size_t, std::less<>> relationsByType;
    std::size_t duplicateDocuments = 0;  ///< repeated documents dropped while reading
    std::size_t distinctIds = 0;         ///< canonical ids over all mentions, "-1" parts excluded
};

CorpusStats computeCorpusStats(const Corpus& corpus);

/// Mentions whose ids a knowledge base does not know (computed by callers that hold a KB).
struct UnknownIdStats {
    std::size_t mentionsWithUnknownId = 0;  ///< mentions with at least one unknown id
    std::vector<std::string> unknownIds;    ///< distinct unknown canonical ids, sorted
};

/// `isKnown` receives canonical ids ("MESH:D012878"); CUI-less mentions and "-1" parts are
/// not asked about.
UnknownIdStats countUnknownIds(const Corpus& corpus, const std::function<bool(std::string_view canonicalId)>& isKnown);

}  // namespace linkscope
