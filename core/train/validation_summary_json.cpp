#include "train/validation_summary_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

#include "util/error.h"

namespace linkscope::train {
namespace {

constexpr std::array<std::string_view, 3> kSources = {kValidationFromDev, kValidationFromKbHoldout, kValidationNone};

bool isAccuracy(double value) { return value == -1.0 || (value >= 0.0 && value <= 1.0); }

double finite(double value, std::string_view key) {
    // JSON has no NaN or infinity (nlohmann would write null, which no reader accepts back).
    if (!std::isfinite(value)) throw Error("run.json: \"validation\": \"" + std::string(key) + "\" is not finite");
    return value;
}

}  // namespace

nlohmann::ordered_json validationSummaryJson(const ValidationSummary& summary) {
    nlohmann::ordered_json json;
    json["source"] = summary.source;
    json["queries"] = summary.queries;
    if (summary.source != kValidationFromDev) {
        json["holdout_share"] = finite(summary.holdoutShare, "holdout_share");
        json["eligible_concepts"] = summary.eligibleConcepts;
    }
    json["sparse_acc1"] = finite(summary.sparseAcc1, "sparse_acc1");
    json["kept_acc1"] = finite(summary.keptAcc1, "kept_acc1");
    nlohmann::ordered_json epochs = nlohmann::ordered_json::array();
    for (const double value : summary.epochAcc1) epochs.push_back(finite(value, "epoch_acc1"));
    json["epoch_acc1"] = std::move(epochs);
    json["warnings"] = summary.warnings;
    return json;
}

ValidationSummary readValidationSummary(JsonObjectReader& reader) {
    ValidationSummary summary;
    reader.require("source");
    reader.string("source", summary.source);
    if (std::find(kSources.begin(), kSources.end(), summary.source) == kSources.end())
        reader.fail("source", "must be dev, kb-holdout or none, not \"" + summary.source + "\"");
    for (const auto key : {"queries", "sparse_acc1", "kept_acc1", "epoch_acc1", "warnings"}) reader.require(key);
    reader.size("queries", summary.queries);
    reader.real("holdout_share", summary.holdoutShare, RealRange::between(0.0, 1.0));
    reader.size("eligible_concepts", summary.eligibleConcepts);
    reader.real("sparse_acc1", summary.sparseAcc1);
    reader.real("kept_acc1", summary.keptAcc1);
    for (const auto& [key, value] :
         {std::pair{"sparse_acc1", summary.sparseAcc1}, std::pair{"kept_acc1", summary.keptAcc1}})
        if (!isAccuracy(value)) reader.fail(key, "must be an accuracy in [0, 1] or -1 (none)");
    const nlohmann::json& epochs = *reader.member("epoch_acc1");
    if (!epochs.is_array()) reader.fail("epoch_acc1", "must be a list of accuracies, not " + describeJson(epochs));
    for (const auto& value : epochs) {
        if (!value.is_number() || !isAccuracy(value.get<double>()) || value.get<double>() < 0.0)
            reader.fail("epoch_acc1", "must be a list of accuracies in [0, 1], not holding " + describeJson(value));
        summary.epochAcc1.push_back(value.get<double>());
    }
    reader.stringList("warnings", summary.warnings);
    reader.finish();
    return summary;
}

}  // namespace linkscope::train
