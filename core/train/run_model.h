#pragma once
// A training run's model, loaded the way its method links: the preset named by run.json, the
// best model (RUN/model) with the preset's pooling and lengths. The CLI's `eval --run` and the
// GUI's "link with a trained run" both start here. Needs LibTorch.
#include <filesystem>

#include "encoder/text_encoder.h"
#include "train/run_directory.h"
#include "train/training_preset.h"

namespace linkscope::train {

struct RunModel {
    TrainingPreset preset;
    RunInfo info;
    std::filesystem::path modelDirectory;
    encoder::TextEncoder encoder;
};

/// Loads RUN's preset and model. `options` gives device, batch size and precision; pooling and
/// lengths are the preset's, and the outputs are not normalized (the method's similarity decides).
/// Error when the folder is not a run directory or holds no model yet.
RunModel loadRunModel(const std::filesystem::path& run, encoder::EncoderOptions options = {});

}  // namespace linkscope::train
