#pragma once
// One training run of core's trainer for the training dock (dense_engine.h's train()), as
// `linkscope-cli train` runs it: the project's train split and KB, an optional dev split, a
// method preset and schedule, the compact encoder trained from scratch or a model folder to
// fine-tune. Progress is thinned to about 20 updates a second (a compact encoder steps far faster
// than a person can read, and an update per step would flood the GUI's event loop).
#include <memory>

#include "dense_engine.h"

namespace linkscope::ui {

/// Trains on the calling thread; Error for a bad request, Cancelled when report.cancelled() asked.
void runTrainingJob(const std::shared_ptr<const LoadedProject>& project, const TrainingRequest& request,
                    const TrainingReport& report);

}  // namespace linkscope::ui
