#include "train/run_model.h"

#include <algorithm>

#include "util/error.h"

namespace linkscope::train {

RunModel loadRunModel(const std::filesystem::path& run, encoder::EncoderOptions options) {
    if (!isRunDirectory(run))
        throw Error(run.string() +
                    " is not a run directory (it has no run.json and preset.json); "
                    "`linkscope-cli train --out DIR` makes one");
    RunInfo info = readRunInfo(run);
    // Named by run.json: preset.json alone reads back as a preset named "preset".
    TrainingPreset preset = loadRunPreset(run, info);
    std::filesystem::path model = modelDirectory(run);
    if (!std::filesystem::exists(model / "config.json"))
        throw Error(run.string() + " holds no model yet (run status \"" + info.status +
                    "\"): the model is written after the first validated epoch");
    // The method's pooling and lengths (the linker encodes mentions and names with the preset's
    // lengths per call; this length only bounds what is loaded).
    options.pooling = preset.pooling;
    options.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    options.normalize = false;
    encoder::TextEncoder encoder = encoder::TextEncoder::load(model, options);
    return {std::move(preset), std::move(info), std::move(model), std::move(encoder)};
}

}  // namespace linkscope::train
