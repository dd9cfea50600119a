#pragma once
// One candidate entity for one mention, as the curation GUI lists it: the entity, the name that
// matched, and the parts of its score that the active linker has (a sparse-only linker has no
// dense part, a model without datastore no kNN part), so the view shows what each ranking was
// made of rather than a bare number.
#include <optional>
#include <string>

namespace linkscope::curation {

struct CandidateRow {
    std::string entity;           ///< canonical id ("MESH:D009369")
    std::string matchedName;      ///< the dictionary name that ranked it (normalized; homonym-expanded when the KB is)
    double score = 0.0;           ///< what the ranking sorts by
    std::optional<float> sparse;  ///< TF-IDF cosine
    std::optional<float> dense;   ///< the encoder's similarity
    std::optional<double> modelProbability;  ///< kNN interpolation: p_model
    std::optional<double> knnProbability;    ///< kNN interpolation: p_kNN
    std::optional<int> sieveStage;           ///< sieve: the stage that decided
    bool sharedName = false;                 ///< the matched name also names other entities (an unresolved homonym)
};

}  // namespace linkscope::curation
