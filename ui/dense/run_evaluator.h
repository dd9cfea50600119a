#pragma once
// The evaluation dock's trained run (dense_engine.h's RunEvaluator): the run's model loaded as
// its method links, ranking BioSyn's evaluation data as `linkscope-cli eval --run` does.
#include <filesystem>
#include <memory>

#include "dense_engine.h"

namespace linkscope::ui {

/// Loads the run's model (Error when the folder holds none).
std::unique_ptr<RunEvaluator> loadModelRunEvaluator(const std::filesystem::path& run, bool cpuOnly);

}  // namespace linkscope::ui
