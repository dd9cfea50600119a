#pragma once
// What a run's validation says about the model it kept (run.json's "validation"): the data it
// was chosen on, how the sparse linker (TF-IDF) links that same data, and the warnings, in plain
// words, that the CLI, run.json and the Training dock show. Torch-free.
#include <cstddef>
#include <string>
#include <vector>

namespace linkscope::train {

/// Where the validation queries come from.
inline constexpr const char* kValidationFromDev = "dev";               ///< the dev corpus' mentions
inline constexpr const char* kValidationFromKbHoldout = "kb-holdout";  ///< held-out KB names (kb_holdout.h)
inline constexpr const char* kValidationNone = "none";                 ///< not validated: the last epoch is kept

struct ValidationSummary {
    std::string source;                ///< kValidationFromDev, kValidationFromKbHoldout or kValidationNone
    std::size_t queries = 0;           ///< validation queries (mentions or held-out names)
    double holdoutShare = 0.0;         ///< kb-holdout and none: the share of concepts the holdout asks for
    std::size_t eligibleConcepts = 0;  ///< kb-holdout and none: the KB's concepts with two names or more
    double sparseAcc1 = -1.0;          ///< the sparse linker's Acc@1 on the same queries; -1: not measured
    double keptAcc1 = -1.0;            ///< the kept model's Acc@1; -1: none
    std::vector<double> epochAcc1;     ///< Acc@1 after epoch 1, 2, ... (the untrained model's is apart)
    std::vector<std::string> warnings;

    friend bool operator==(const ValidationSummary&, const ValidationSummary&) = default;
};

/// The warnings a validation gives, in plain words: not validated at all; the kept model below
/// the sparse linker; training lowered Acc@1 at every epoch (each epoch below `untrainedAcc1`,
/// so the kept model is the untrained one). Empty when none applies.
std::vector<std::string> validationWarnings(const ValidationSummary& summary, double untrainedAcc1);

/// "dev Acc@1" or "held-out KB names Acc@1": what a validation of this source measures.
std::string validationMetricName(const std::string& source);

}  // namespace linkscope::train
