#pragma once
// run.json's "validation" object (validation_summary.h) written and read back. Internal to
// core: the header includes nlohmann/json.
#include <nlohmann/json.hpp>

#include "train/validation_summary.h"
#include "util/json_object_reader.h"

namespace linkscope::train {

/// {"source", "queries", ["holdout_share", "eligible_concepts",] "sparse_acc1", "kept_acc1",
/// "epoch_acc1": [...], "warnings": [...]}; the holdout's keys only for a KB holdout or none.
/// Error for a value that is not a finite number.
nlohmann::ordered_json validationSummaryJson(const ValidationSummary& summary);

/// Reads what validationSummaryJson wrote; ParseError naming the file and the key for a missing
/// or unknown key, a wrong type, or an accuracy outside [0, 1] (or -1: none).
ValidationSummary readValidationSummary(JsonObjectReader& reader);

}  // namespace linkscope::train
