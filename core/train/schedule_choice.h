#pragma once
// Which schedule of a preset a run takes when the user names none: the one made for what the
// encoder starts from. A preset's "short" schedule was chosen on dev for the compact encoder
// from random weights, its "short-pretrained" (where it has one) for an encoder Linkscope
// pretrained, and the paper's schedule is the paper's, made for a start that is already a
// trained BERT (a downloaded checkpoint). `linkscope-cli train` and `pretrain` and the Training
// dock choose with it. Torch-free.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "train/training_preset.h"

namespace linkscope::train {

/// What a run's encoder starts from.
struct EncoderStart {
    enum class Kind {
        Compact,       ///< a new compact encoder, random weights
        LinkscopeRun,  ///< a run folder Linkscope trained (self-alignment, context alignment, ...)
        Checkpoint,    ///< a plain Hugging Face checkpoint folder (a downloaded one)
        Resume,        ///< the run being resumed, which keeps its own schedule
    };
    Kind kind = Kind::Compact;
    std::filesystem::path folder;  ///< the run or checkpoint folder (empty for Compact)
    /// LinkscopeRun: the method of its preset.json; unset when that file does not read (the
    /// encoder's loader reports why).
    std::optional<Method> runMethod;
    std::string runSchedule;  ///< Resume: the schedule the run was started with (run.json)

    friend bool operator==(const EncoderStart&, const EncoderStart&) = default;
};

/// A new compact encoder.
EncoderStart compactStart();
/// The start a `--model` folder gives, read from disk: a run directory (isRunDirectory), or the
/// model/ folder of one, is a LinkscopeRun; anything else a Checkpoint.
EncoderStart startOfFolder(const std::filesystem::path& folder);
/// The run in `run`, resumed; ParseError (as readRunInfo) for a malformed run.json.
EncoderStart resumeStart(const std::filesystem::path& run);

/// The start as contextStartAdvice weighs it (a self-alignment run: NamesOnly; a context
/// alignment run: ContextAligned; a checkpoint or any other run: Unknown).
StartKind contextStartKind(const EncoderStart& start);

struct ScheduleChoice {
    std::string schedule;  ///< a schedule `preset` has ("paper" included)
    std::string reason;    ///< why, in plain words, for the command's output and run.json
    friend bool operator==(const ScheduleChoice&, const ScheduleChoice&) = default;
};

/// The schedule of `preset` for `start`. A non-empty `asked` (the user's --schedule) always
/// wins, with the reason "as asked" (whether the preset has it is checked where it is applied).
/// Otherwise: Compact takes "short" where the preset has it; a LinkscopeRun "short-pretrained",
/// else "short"; a Checkpoint the paper's; Resume the run's own; "paper" where the preset has
/// none of those.
ScheduleChoice chooseSchedule(const TrainingPreset& preset, const EncoderStart& start, std::string_view asked = {});

}  // namespace linkscope::train
