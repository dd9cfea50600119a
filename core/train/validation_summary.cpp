#include "train/validation_summary.h"

#include <algorithm>
#include <cstdio>

#include "train/kb_holdout.h"

namespace linkscope::train {
namespace {

std::string accuracy(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", value);
    return text;
}

std::string dataName(const ValidationSummary& summary) {
    const std::string queries = std::to_string(summary.queries);
    if (summary.source == kValidationFromKbHoldout) return queries + " held-out KB names";
    return queries + " dev mentions";
}

}  // namespace

std::string validationMetricName(const std::string& source) {
    return source == kValidationFromKbHoldout ? "held-out KB names Acc@1" : "dev Acc@1";
}

std::vector<std::string> validationWarnings(const ValidationSummary& summary, double untrainedAcc1) {
    std::vector<std::string> warnings;
    if (summary.source == kValidationNone) {
        warnings.push_back("not validated: no dev set was given, and the KB has " +
                           std::to_string(summary.eligibleConcepts) +
                           " concepts with two names or more, too few to hold out " + std::to_string(kKbHoldoutFewest) +
                           " of them for validation; the last epoch's model is kept, unchecked (give a dev set)");
        return warnings;
    }
    if (summary.keptAcc1 >= 0.0 && summary.sparseAcc1 >= 0.0 && summary.keptAcc1 < summary.sparseAcc1)
        warnings.push_back("the kept model links worse than the sparse linker (TF-IDF): Acc@1 " +
                           accuracy(summary.keptAcc1) + " against " + accuracy(summary.sparseAcc1) + " on the same " +
                           dataName(summary) + "; on data like this, link with the sparse linker instead");
    const auto& epochs = summary.epochAcc1;
    if (untrainedAcc1 >= 0.0 && !epochs.empty() &&
        std::all_of(epochs.begin(), epochs.end(), [&](double value) { return value < untrainedAcc1; })) {
        std::string each;
        for (const double value : epochs) each += (each.empty() ? "" : ", ") + accuracy(value);
        warnings.push_back("training lowered the validation Acc@1 at every epoch (untrained " +
                           accuracy(untrainedAcc1) + ", then " + each +
                           "): the kept model is the untrained one this run started from");
    }
    return warnings;
}

}  // namespace linkscope::train
