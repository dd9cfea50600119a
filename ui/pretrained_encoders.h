#pragma once
// The encoders the training dock offers as a method's start: finished pretraining runs
// (self-alignment, context alignment) with a model folder, the project's registered runs and
// the sapbert-* runs of the output folder, newest first.
#include <filesystem>
#include <vector>

namespace linkscope::project {
class ProjectStore;
}

namespace linkscope::ui {

struct PretrainedEncoder {
    std::filesystem::path directory;  ///< the run directory, absolute
    std::filesystem::file_time_type written;
    bool context = false;  ///< a context alignment (reads mentions between markers)
};

/// Every finished pretraining run of `store` (may be null; an unreadable store lists none) and of
/// `runsFolder` (may be empty), each once, the most recently written first.
std::vector<PretrainedEncoder> findPretrainedEncoders(const project::ProjectStore* store,
                                                      const std::filesystem::path& runsFolder);

}  // namespace linkscope::ui
