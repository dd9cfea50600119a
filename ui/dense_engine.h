#pragma once
// What the GUI asks of the dense engine (LibTorch and FAISS: trained runs, the trainer), behind
// one abstract class. The dense module (ui/dense/, liblinkscope_ui_dense.so) implements it and is
// loaded at run time by dense_engine_loader.h, on a worker, the first time a run is linked or
// evaluated or a training starts: the window opens without LibTorch, and a build or an
// installation without the module still runs everything else.
//
// Every function here runs on a worker thread and may take minutes. Errors are thrown as core's
// Error, a cancellation (the progress sink's or the report's flag) as Cancelled.
#include <QString>

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "curation/augmented_linker.h"
#include "eval/evaluate.h"
#include "project/curation_decision.h"
#include "training_request.h"
#include "util/progress.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class RunRanker;
struct ProjectEvalData;

/// What the GUI links a project with (the Linking menu's choices).
struct RunLinkRequest {
    std::filesystem::path run;          ///< a training run directory
    curation::LinkMode mode{};          ///< kNN interpolation, the sieve, or the model alone
    std::filesystem::path projectFile;  ///< where the training datastore is kept
};

/// A trained run loaded for the evaluation dock.
class RunEvaluator {
public:
    virtual ~RunEvaluator() = default;
    /// Whether the run's preset trains on BELHD's homonym-expanded KB names: the dictionary the
    /// evaluation builds must hold them too.
    virtual bool homonymExpansion() const = 0;
    /// Ranks `data`'s queries as the run's method links (with kNN-BioEL's datastore of the
    /// training mentions when `knn`), by core's evaluate() with `options`.
    virtual eval::EvalResult evaluate(const LoadedProject& project, const ProjectEvalData& data, bool knn,
                                      const eval::EvalOptions& options, const ProgressSink& progress) = 0;
};

/// What a training reports, called on the training's thread.
struct TrainingReport {
    std::function<void(const TrainingUpdate&)> progress;
    /// After each epoch: its mean training loss (NaN without steps) and the dev Acc@1 (-1 without dev).
    std::function<void(int epoch, double trainLoss, double devAccuracy)> epochEnded;
    std::function<void(int epoch, const QString& warning)> collapseWarning;
    std::function<bool()> cancelled;
};

class DenseEngine {
public:
    virtual ~DenseEngine() = default;
    /// Loads the run and links every mention of `project` with it; `decisions` (in effect) feed
    /// its datastore as if just made.
    virtual std::shared_ptr<RunRanker> linkRun(std::shared_ptr<const LoadedProject> project,
                                               const RunLinkRequest& request,
                                               const std::vector<project::Decision>& decisions,
                                               const ProgressSink& progress) = 0;
    /// Loads a run's model for evaluation (the CPU only when `cpuOnly`).
    virtual std::unique_ptr<RunEvaluator> loadRunEvaluator(const std::filesystem::path& run, bool cpuOnly) = 0;
    /// Trains into request.runDirectory as `linkscope-cli train` does; returns once the run is
    /// written. Throws Cancelled when report.cancelled() asked (the checkpoint is written).
    virtual void train(std::shared_ptr<const LoadedProject> project, const TrainingRequest& request,
                       const TrainingReport& report) = 0;
};

}  // namespace linkscope::ui

/// The module's one entry point (C linkage, so that dlsym finds it): the engine, which lives as
/// long as the process.
extern "C" linkscope::ui::DenseEngine* linkscope_ui_dense_engine();
