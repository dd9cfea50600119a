#pragma once
// Where a training loop is, as checkpoint/state.json holds it: what `train --resume` reads back.
// Torch-free, so that the reader of this outside file is fuzzed with the others (tests/fuzz).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace linkscope::train {

struct LoopState {
    std::size_t epoch = 0;  ///< 0-based epoch in progress (or next)
    std::size_t step = 0;   ///< optimizer steps done in it
    std::size_t globalStep = 0;
    bool validated = true;  ///< false: the epoch before `epoch` ended but was not validated yet
    std::size_t epochsWithoutImprovement = 0;
    std::uintmax_t logBytes = 0;  ///< the log's size when the checkpoint was written
    std::map<std::string, double> scalars;
    std::size_t collapsedValidations = 0;  ///< run.json's count when the checkpoint was written
    /// The sum of the losses of the `step` steps done in the epoch: a resumed epoch logs the mean
    /// over all its steps, as an uninterrupted one does (0 in checkpoints of older versions).
    double epochLoss = 0.0;
};

nlohmann::json toJson(const LoopState& state);

/// Reads state.json. Throws ParseError naming the file for malformed JSON, a missing key, a count
/// that is not a whole number in range (1e30, -1, 0.5) or a scalar that is not finite.
LoopState loopStateFrom(const std::filesystem::path& file);

}  // namespace linkscope::train
