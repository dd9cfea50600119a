#pragma once
// A training run on disk, what `linkscope-cli train --out RUN` writes and what `eval`, the GUI's
// run list and `train --resume` read:
//   RUN/preset.json       the preset as run (TrainingPreset::toJson), schedule applied
//   RUN/run.json          RunInfo below: status, learned scalars, best epoch, device, timings
//   RUN/log.jsonl         one JSON object per line: {"event":"step",...} and {"event":"epoch",...}
//   RUN/model/            the best model so far (by dev Acc@1), Hugging Face layout
//   RUN/checkpoint/       the latest state to resume from: model/, optimizer.pt, state.json,
//                         run.json (RUN/run.json as of the checkpoint: what a resume starts
//                         from), candidates.bin; replaced atomically (written beside, then renamed)
//   RUN/dev-report.json   the evaluation of the best model on the dev set
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "train/training_preset.h"
#include "train/validation_summary.h"

namespace linkscope::train {

struct RunInfo {
    std::string status = "running";  ///< "running", "cancelled", "finished", "failed"
    /// The preset's name as the user chose it ("biosyn", or the stem of the file given): preset.json
    /// alone would name it "preset". Empty for runs written before run.json recorded it.
    std::string preset;
    std::string schedule;  ///< the schedule's name ("paper", "short")
    /// Why that schedule, in plain words (schedule_choice.h); empty for runs of older versions.
    std::string scheduleReason;
    std::string device;  ///< "cpu", "cuda:0"
    std::size_t epochsDone = 0;
    std::size_t bestEpoch = 0;           ///< 1-based; 0: the starting model (or none, bestDevAccuracy -1)
    double bestDevAccuracy = -1.0;       ///< dev Acc@1 of RUN/model; -1: none
    double untrainedDevAccuracy = -1.0;  ///< dev Acc@1 before the first step
    double sparseWeight = 0.0;           ///< BioSyn's learned lambda (of the best model)
    double radius = 0.0;                 ///< Le & Nguyen's learned soft radius
    double seconds = 0.0;                ///< training wall time so far (resumed runs add up)
    std::string error;                   ///< why a failed run failed
    /// Empty, or how the kept model (RUN/model) has collapsed (collapse_check.h), in plain words.
    std::string collapse;
    /// Validations (the untrained one included) whose model had collapsed.
    std::size_t collapsedValidations = 0;
    /// What the kept model was chosen on and how it compares with the sparse linker, with its
    /// warnings (validation_summary.h); absent in run.json files of older versions.
    std::optional<ValidationSummary> validation;

    friend bool operator==(const RunInfo&, const RunInfo&) = default;
};

std::filesystem::path presetFile(const std::filesystem::path& run);
std::filesystem::path runInfoFile(const std::filesystem::path& run);
std::filesystem::path logFile(const std::filesystem::path& run);
std::filesystem::path modelDirectory(const std::filesystem::path& run);
std::filesystem::path checkpointDirectory(const std::filesystem::path& run);
std::filesystem::path devReportFile(const std::filesystem::path& run);

/// True when the directory holds run.json and preset.json.
bool isRunDirectory(const std::filesystem::path& directory);
/// Reads run.json; ParseError naming the file for malformed content.
RunInfo readRunInfo(const std::filesystem::path& run);
/// Writes run.json atomically; Error naming it when it or the run folder is a symbolic link (run_files.h).
void writeRunInfo(const std::filesystem::path& run, const RunInfo& info);

/// RUN/preset.json named as the run's preset (info.preset, from readRunInfo(run)); a run.json
/// without the name (older runs) leaves the name TrainingPreset::load gives ("preset").
TrainingPreset loadRunPreset(const std::filesystem::path& run, const RunInfo& info);

}  // namespace linkscope::train
