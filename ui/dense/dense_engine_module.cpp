// The dense module's engine (dense_engine.h): the GUI's entry to LibTorch, reached through
// linkscope_ui_dense_engine() once dense_engine_loader.cpp has loaded the module.
#include <memory>

#include "curation/model_candidates.h"
#include "dense_engine.h"
#include "model_run_ranker.h"
#include "run_evaluator.h"
#include "training_job.h"

namespace linkscope::ui {
namespace {

class ModuleEngine final : public DenseEngine {
public:
    std::shared_ptr<RunRanker> linkRun(std::shared_ptr<const LoadedProject> project, const RunLinkRequest& request,
                                       const std::vector<project::Decision>& decisions,
                                       const ProgressSink& progress) override {
        curation::ModelCandidatesOptions options;
        options.run = request.run;
        options.mode = request.mode;
        options.projectFile = request.projectFile;
        return std::make_shared<ModelRunRanker>(
            std::make_shared<curation::ModelCandidates>(std::move(project), options, decisions, progress));
    }

    std::unique_ptr<RunEvaluator> loadRunEvaluator(const std::filesystem::path& run, bool cpuOnly) override {
        return loadModelRunEvaluator(run, cpuOnly);
    }

    void train(std::shared_ptr<const LoadedProject> project, const TrainingRequest& request,
               const TrainingReport& report) override {
        runTrainingJob(project, request, report);
    }
};

}  // namespace
}  // namespace linkscope::ui

extern "C" __attribute__((visibility("default"))) linkscope::ui::DenseEngine* linkscope_ui_dense_engine() {
    static linkscope::ui::ModuleEngine engine;
    return &engine;
}
