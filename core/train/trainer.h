#pragma once
// The one trainer behind the five presets: data from the KB and the training corpus, the
// method's objective, validation on dev after each epoch with the best model kept, a JSONL log,
// checkpoints that survive cancellation and crashes, and resume. Torch-free interface: the GUI's
// worker thread and the CLI run it; progress and cancellation go through callbacks.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "encoder/text_encoder.h"
#include "eval/queries.h"
#include "train/run_directory.h"
#include "train/training_preset.h"

namespace linkscope {
class Corpus;
}
namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::train {

/// What a progress callback is told after every optimizer step (and at stage changes).
struct TrainingProgress {
    std::string stage;           ///< "Encoding the KB", "Training", "Validating", ...
    double stageFraction = 0.0;  ///< 0..1 of the stage
    std::size_t epoch = 0;       ///< 1-based
    std::size_t epochs = 0;
    std::size_t step = 0;  ///< optimizer steps done in this epoch
    std::size_t stepsPerEpoch = 0;
    std::size_t globalStep = 0;  ///< optimizer steps done in the run
    double loss = 0.0;           ///< mean loss of the last step
    double learningRate = 0.0;
    double examplesPerSecond = 0.0;     ///< mentions (or names) per second over this epoch
    double etaSeconds = 0.0;            ///< until the end of the run, at the current speed
    std::optional<double> devAccuracy;  ///< set on the validation after an epoch
    /// What devAccuracy measures, in words: "dev Acc@1" (dev mentions linked), "held-out KB names
    /// Acc@1" (a KB holdout, without dev), or the masked-LM stage's "held-out masked-token accuracy".
    std::string validationMetric = "dev Acc@1";
    /// With devAccuracy: empty, or how the validated model has collapsed (collapse_check.h), in
    /// words the CLI and the Training dock show as they are.
    std::string warning;
};

struct TrainerOptions {
    std::filesystem::path runDirectory;  ///< created; must be empty or a run to resume
    std::string schedule = "paper";      ///< a schedule of the preset
    std::string scheduleReason;          ///< why that schedule (schedule_choice.h), kept in run.json
    /// Continue the run in runDirectory from its checkpoint (Error when there is none, or when
    /// its preset differs from `preset` with the schedule applied).
    bool resume = false;
    encoder::DevicePreference device = encoder::DevicePreference::Auto;
    /// Mixed precision (bf16 autocast) on CUDA; ignored on the CPU.
    bool mixedPrecision = true;
    /// Write a checkpoint every this many optimizer steps besides the end of every epoch; 0:
    /// epochs only (a cancellation always writes one).
    std::size_t checkpointSteps = 0;
    std::size_t logSteps = 10;  ///< a "step" line in the log every this many steps
    std::function<void(const TrainingProgress&)> progress;
    std::function<bool()> cancelled;  ///< polled between steps; true: checkpoint and stop
};

/// The data of a run: the KB, its training and dev corpora, and how their mentions become
/// queries (BioSyn's preprocessing: eval::QueryOptions).
struct TrainingInputs {
    const kb::KnowledgeBase* kb = nullptr;
    /// May be null for the self-alignment pretraining (it learns from KB names) and for the
    /// masked-LM stage given textCorpora.
    const Corpus* train = nullptr;
    /// May be null: a share of the KB's concepts is then held out for validation (kb_holdout.h),
    /// and when the KB is too small for it the run is not validated (the last epoch is kept, and
    /// run.json's validation warns).
    const Corpus* dev = nullptr;
    eval::QueryOptions queries;
    /// The self-alignment pretraining's vocabularies (their synonyms are paired); empty: `kb`.
    /// The dev mentions are validated against `kb`'s names.
    std::vector<const kb::KnowledgeBase*> pretrainingKbs;
    /// The masked-LM stage's texts: the titles and abstracts of these corpora (empty: `train`'s).
    /// Every other method ignores them.
    std::vector<const Corpus*> textCorpora;
};

struct TrainingResult {
    RunInfo info;            ///< as written to run.json
    bool cancelled = false;  ///< stopped by the caller; the checkpoint resumes it
};

/// Trains `encoder` (moved in: it is the starting point, pretrained or compact) with the preset's
/// method. Throws Error for bad inputs (no training mention left after preprocessing, a context
/// method whose tokenizer lacks the markers, ...), leaving run.json with status "failed".
/// Cancellation is not an exception here: the result says it, and the checkpoint is written.
TrainingResult trainModel(const TrainingPreset& preset, encoder::TextEncoder encoder, const TrainingInputs& inputs,
                          const TrainerOptions& options);

}  // namespace linkscope::train
