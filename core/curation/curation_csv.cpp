// simulate-curation's curve as CSV (curationCsv, declared in simulated_curation.h). Apart from the
// walk and in linkscope_core: the GUI's curve reader and its tests read this format in every
// build, with or without the dense engine that runs the walk.
#include <optional>
#include <sstream>
#include <string>

#include "curation/simulated_curation.h"

namespace linkscope::curation {

std::string curationCsv(const CurationSimulation& simulation) {
    std::ostringstream out;
    out << "documents_done,mentions_done,corrections,remaining_mentions,remaining_acc_feedback,remaining_acc_without,"
           "online_acc_feedback,online_acc_without\n";
    const auto optional = [&](const std::optional<double>& value) {
        if (value) out << *value;
    };
    for (const auto& step : simulation.steps) {
        out << step.documentsDone << ',' << step.mentionsDone << ',' << step.correctionsFed << ','
            << step.remainingMentions << ',';
        optional(step.remainingWithFeedback);
        out << ',';
        optional(step.remainingWithout);
        out << ',' << step.onlineWithFeedback << ',' << step.onlineWithout << '\n';
    }
    return out.str();
}

}  // namespace linkscope::curation
