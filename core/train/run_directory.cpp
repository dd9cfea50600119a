#include "train/run_directory.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "train/run_files.h"
#include "train/validation_summary_json.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/json_object_reader.h"

namespace linkscope::train {

namespace {

constexpr std::array<std::string_view, 4> kStatuses = {"running", "cancelled", "finished", "failed"};

// The keys of run.json, in the order writeRunInfo writes them.
constexpr std::array<std::string_view, 16> kKeys = {"status",
                                                    "preset",
                                                    "schedule",
                                                    "schedule_reason",
                                                    "device",
                                                    "epochs_done",
                                                    "best_epoch",
                                                    "best_dev_accuracy",
                                                    "untrained_dev_accuracy",
                                                    "sparse_weight",
                                                    "radius",
                                                    "seconds",
                                                    "error",
                                                    "collapse",
                                                    "collapsed_validations",
                                                    "validation"};
// Keys that run.json files of older versions lack (read with a default).
constexpr std::array<std::string_view, 5> kOptionalKeys = {"preset", "schedule_reason", "collapse",
                                                           "collapsed_validations", "validation"};

// Reads run.json's values with messages that name the file and the key. run.json is written
// whole by writeRunInfo, so every key is required (but those older versions did not write) and
// an unknown one is refused: a file that does not have exactly these keys was not written by us
// (or was edited by hand), and silently defaulting a learned value (lambda, the radius) would
// evaluate another model than the run's.
class RunJsonReader {
public:
    RunJsonReader(const nlohmann::json& json, std::string file) : reader_(json, std::move(file)) {
        if (!json.is_object()) reader_.fail("run.json must hold a JSON object");
        reader_.refuseKeysOtherThan(kKeys);
    }

    std::string text(std::string_view key) {
        std::string value;
        if (present(key)) reader_.string(key, value);
        return value;
    }
    std::size_t count(std::string_view key) {
        std::size_t value = 0;
        if (present(key)) reader_.size(key, value);
        return value;
    }
    double number(std::string_view key) {
        double value = 0.0;
        if (present(key)) reader_.real(key, value);
        return value;
    }

    [[noreturn]] void fail(const std::string& message) const { reader_.fail(message); }

    /// run.json's "validation" (validation_summary_json.h), absent in older versions.
    std::optional<ValidationSummary> validation() {
        auto nested = reader_.object("validation");
        if (!nested) return std::nullopt;
        return readValidationSummary(*nested);
    }

private:
    // False for an optional key that is absent; an error for a required one.
    bool present(std::string_view key) const {
        if (reader_.has(key)) return true;
        if (std::find(kOptionalKeys.begin(), kOptionalKeys.end(), key) != kOptionalKeys.end()) return false;
        reader_.fail("missing key \"" + std::string(key) + "\"");
    }

    JsonObjectReader reader_;
};

void requireFinite(double value, std::string_view key) {
    // JSON has no NaN or infinity (nlohmann would write null, which no reader accepts back).
    if (!std::isfinite(value)) throw Error("run.json: \"" + std::string(key) + "\" is not a finite number");
}

}  // namespace

std::filesystem::path presetFile(const std::filesystem::path& run) { return run / "preset.json"; }
std::filesystem::path runInfoFile(const std::filesystem::path& run) { return run / "run.json"; }
std::filesystem::path logFile(const std::filesystem::path& run) { return run / "log.jsonl"; }
std::filesystem::path modelDirectory(const std::filesystem::path& run) { return run / "model"; }
std::filesystem::path checkpointDirectory(const std::filesystem::path& run) { return run / "checkpoint"; }
std::filesystem::path devReportFile(const std::filesystem::path& run) { return run / "dev-report.json"; }

bool isRunDirectory(const std::filesystem::path& directory) {
    std::error_code ec;
    return std::filesystem::is_regular_file(runInfoFile(directory), ec) &&
           std::filesystem::is_regular_file(presetFile(directory), ec);
}

RunInfo readRunInfo(const std::filesystem::path& run) {
    const std::filesystem::path file = runInfoFile(run);
    const nlohmann::json json = readJsonFile(file);
    RunJsonReader reader(json, file.string());
    RunInfo info;
    info.status = reader.text("status");
    if (std::find(kStatuses.begin(), kStatuses.end(), info.status) == kStatuses.end())
        reader.fail("\"status\" must be running, cancelled, finished or failed, not \"" + info.status + "\"");
    info.preset = reader.text("preset");
    info.schedule = reader.text("schedule");
    info.scheduleReason = reader.text("schedule_reason");
    info.device = reader.text("device");
    info.epochsDone = reader.count("epochs_done");
    info.bestEpoch = reader.count("best_epoch");
    if (info.bestEpoch > info.epochsDone)
        reader.fail("\"best_epoch\" (" + std::to_string(info.bestEpoch) + ") is after \"epochs_done\" (" +
                    std::to_string(info.epochsDone) + ")");
    info.bestDevAccuracy = reader.number("best_dev_accuracy");
    info.untrainedDevAccuracy = reader.number("untrained_dev_accuracy");
    for (const auto& [key, value] : {std::pair{"best_dev_accuracy", info.bestDevAccuracy},
                                     std::pair{"untrained_dev_accuracy", info.untrainedDevAccuracy}})
        if (value != -1.0 && (value < 0.0 || value > 1.0))
            reader.fail("\"" + std::string(key) + "\" must be an accuracy in [0, 1] or -1 (none)");
    info.sparseWeight = reader.number("sparse_weight");
    info.radius = reader.number("radius");
    info.seconds = reader.number("seconds");
    if (info.seconds < 0.0) reader.fail("\"seconds\" must not be negative");
    info.error = reader.text("error");
    info.collapse = reader.text("collapse");
    info.collapsedValidations = reader.count("collapsed_validations");
    info.validation = reader.validation();
    return info;
}

void writeRunInfo(const std::filesystem::path& run, const RunInfo& info) {
    if (std::find(kStatuses.begin(), kStatuses.end(), info.status) == kStatuses.end())
        throw Error("run.json: unknown status \"" + info.status + "\"");
    requireFinite(info.bestDevAccuracy, "best_dev_accuracy");
    requireFinite(info.untrainedDevAccuracy, "untrained_dev_accuracy");
    requireFinite(info.sparseWeight, "sparse_weight");
    requireFinite(info.radius, "radius");
    requireFinite(info.seconds, "seconds");

    // ordered_json keeps the keys in the order written, which is easier to read.
    nlohmann::ordered_json json;
    json["status"] = info.status;
    json["preset"] = info.preset;
    json["schedule"] = info.schedule;
    json["schedule_reason"] = info.scheduleReason;
    json["device"] = info.device;
    json["epochs_done"] = info.epochsDone;
    json["best_epoch"] = info.bestEpoch;
    json["best_dev_accuracy"] = info.bestDevAccuracy;
    json["untrained_dev_accuracy"] = info.untrainedDevAccuracy;
    json["sparse_weight"] = info.sparseWeight;
    json["radius"] = info.radius;
    json["seconds"] = info.seconds;
    json["error"] = info.error;
    json["collapse"] = info.collapse;
    json["collapsed_validations"] = info.collapsedValidations;
    if (info.validation) json["validation"] = validationSummaryJson(*info.validation);

    std::error_code ec;
    std::filesystem::create_directories(run, ec);
    if (ec) throw Error(run.string() + ": cannot create the run folder: " + ec.message());
    // The writer would write through a link (and keep it): a run's files never are (run_files.h).
    refuseLink(run.has_filename() ? run : run.parent_path());
    refuseLink(runInfoFile(run));
    AtomicFileWriter writer(runInfoFile(run));
    // nlohmann writes doubles with the 17 significant digits that read back to the same double;
    // an error message carrying bytes that are not UTF-8 (quoted from a bad input) gets U+FFFD
    // for them rather than failing to record why the run failed.
    writer.stream() << json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    writer.commit();
}

TrainingPreset loadRunPreset(const std::filesystem::path& run, const RunInfo& info) {
    TrainingPreset preset = TrainingPreset::load(presetFile(run));
    if (!info.preset.empty()) preset.name = info.preset;
    return preset;
}

}  // namespace linkscope::train
