#pragma once
// BioSyn's evaluation data for one split of a project, as `linkscope-cli eval` builds it: the
// dictionary (KB names + training mentions, + dev mentions for the test split) and the queries.
// Built by evaluation_run.cpp; a trained run's evaluation in the dense module ranks with it.
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_set>

#include "eval/queries.h"
#include "retrieval/name_dictionary.h"

namespace linkscope {
class Corpus;
}

namespace linkscope::ui {

struct ProjectEvalData {
    const Corpus* evaluated = nullptr;
    const Corpus* train = nullptr;
    retrieval::NameDictionary dictionary;
    std::size_t kbEntries = 0;  ///< dictionary[0, kbEntries) are the KB's names
    eval::QuerySet trainQueries;
    eval::QuerySet queries;
    std::optional<std::unordered_set<std::string>> trainingIds;
};

}  // namespace linkscope::ui
