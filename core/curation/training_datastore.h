#pragma once
// kNN-BioEL's datastore as the paper builds it (section 2.3): one key per training mention,
// the mention's embedding by the active encoder, valued with its gold entity.
//
// A mention of one part gets one key per gold id (a mention of two ids names both). A composite
// mention split into parts is left out: the corpus lists its ids in no fixed relation to its
// parts (NCBI Disease writes "breast and ovarian cancer" as D010051|D001943), and a part keyed
// with a wrong id would answer the next identical mention wrongly with full confidence. BioSyn's
// dictionary, for the same reason, adds such a mention only whole. The key's source is the
// part's normalized text, what the sieve's exact stage matches.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "eval/queries.h"
#include "retrieval/knn_datastore.h"
#include "util/progress.h"

namespace linkscope::train {
class MethodLinker;
}

namespace linkscope::curation {

struct TrainingDatastoreStatistics {
    std::size_t mentions = 0;
    std::size_t keys = 0;
    std::size_t compositesLeftOut = 0;  ///< mentions of several parts (see above)
};

/// The gold ids a mention's vector is keyed with: all of them for a mention of one part, none
/// for a composite of several parts (see the header comment).
std::vector<std::string> keyIds(const eval::EvalQuery& query);

/// Encodes every part of the training queries as the model encodes mention inputs (input(query,
/// part), as eval::EvalOptions::partText) and stores them, tied to encoderFingerprint. Progress
/// "Encoding training mentions"; Cancelled.
retrieval::KnnDatastore buildTrainingDatastore(
    const train::MethodLinker& model, std::span<const eval::EvalQuery> queries,
    const std::function<std::string(const eval::EvalQuery&, std::size_t)>& input, std::string encoderFingerprint,
    const ProgressSink* progress = nullptr, TrainingDatastoreStatistics* statistics = nullptr);

}  // namespace linkscope::curation
