#pragma once
// Reading back the curve `linkscope-cli simulate-curation --csv FILE` writes
// (curation::curationCsv): a header line, then one row per step of the simulated walk,
//   documents_done, mentions_done, corrections, remaining_mentions   whole numbers >= 0,
//   remaining_acc_feedback, remaining_acc_without   a fraction in [0, 1] or empty (not evaluated),
//   online_acc_feedback, online_acc_without         fractions in [0, 1].
// The evaluation dock's curation curve plots it. Lives in ui because it only feeds that plot;
// it uses no Qt, so it could move to core beside the writer.
#include <filesystem>
#include <vector>

#include "curation/simulated_curation.h"

namespace linkscope::ui {

/// The steps of the file, in file order. Throws ParseError naming the file and line for a
/// header that is not curationCsv's, a row with another number of fields, a field that is not a
/// number of its kind or a fraction outside [0, 1]; and for a file without rows.
std::vector<curation::CurationStep> readCurationCurve(const std::filesystem::path& file);

}  // namespace linkscope::ui
