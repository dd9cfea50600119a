#include "train/loop_state.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_file.h"
#include "util/json_number.h"

namespace linkscope::train {
namespace fs = std::filesystem;
namespace {

// A count in state.json: a whole number from 0 to `max`. nlohmann's get<size_t>() would read
// 1e30 or 0.5 as some integer and -1 as 2^64-1, and a resume would go on from nonsense.
std::uint64_t countField(const nlohmann::json& json, const char* key, const fs::path& file,
                         std::uint64_t max = std::numeric_limits<std::uint64_t>::max() >> 1) {
    const auto it = json.find(key);
    if (it == json.end()) throw ParseError(file.string(), 0, std::string("not a checkpoint state: no \"") + key + "\"");
    return wholeNumberIn(*it, max, file.string(), std::string("not a checkpoint state: \"") + key + "\"");
}

}  // namespace

nlohmann::json toJson(const LoopState& state) {
    return {{"epoch", state.epoch},
            {"step", state.step},
            {"global_step", state.globalStep},
            {"validated", state.validated},
            {"epochs_without_improvement", state.epochsWithoutImprovement},
            {"log_bytes", state.logBytes},
            {"scalars", state.scalars},
            {"collapsed_validations", state.collapsedValidations},
            {"epoch_loss", state.epochLoss}};
}

LoopState loopStateFrom(const fs::path& file) {
    const auto json = readJsonFile(file);
    if (!json.is_object()) throw ParseError(file.string(), 0, "not a checkpoint state: not a JSON object");
    LoopState state;
    state.epoch = countField(json, "epoch", file);
    state.step = countField(json, "step", file);
    state.globalStep = countField(json, "global_step", file);
    state.epochsWithoutImprovement = countField(json, "epochs_without_improvement", file);
    // The log is appended to and never larger than this; the resume also compares it with the log.
    state.logBytes = countField(json, "log_bytes", file, std::uint64_t{1} << 50);
    // Checkpoints of runs before the collapse check lack it.
    if (json.contains("collapsed_validations"))
        state.collapsedValidations = countField(json, "collapsed_validations", file);
    try {
        state.validated = json.at("validated").get<bool>();
        state.scalars = json.at("scalars").get<std::map<std::string, double>>();
        // Checkpoints of older versions lack it.
        if (json.contains("epoch_loss")) state.epochLoss = json.at("epoch_loss").get<double>();
    } catch (const nlohmann::json::exception& e) {
        throw ParseError(file.string(), 0, std::string("not a checkpoint state: ") + e.what());
    }
    if (!std::isfinite(state.epochLoss))
        throw ParseError(file.string(), 0, "not a checkpoint state: \"epoch_loss\" is not finite");
    for (const auto& [name, value] : state.scalars)
        if (!std::isfinite(value))
            throw ParseError(file.string(), 0, "not a checkpoint state: the scalar \"" + name + "\" is not finite");
    return state;
}

}  // namespace linkscope::train
