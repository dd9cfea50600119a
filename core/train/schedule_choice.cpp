#include "train/schedule_choice.h"

#include <exception>
#include <utility>

#include "train/run_directory.h"

namespace linkscope::train {

namespace {

constexpr std::string_view kShort = "short";
constexpr std::string_view kShortPretrained = "short-pretrained";
constexpr std::string_view kPaper = "paper";

bool has(const TrainingPreset& preset, std::string_view schedule) {
    return preset.schedules.contains(std::string(schedule));
}

ScheduleChoice choice(std::string_view schedule, std::string reason) {
    return {std::string(schedule), std::move(reason)};
}

// "the run encoders/medic-sap (pretrained by Linkscope: sapbert)"
std::string describeRun(const EncoderStart& start) {
    std::string text = "the run " + start.folder.string();
    if (!start.runMethod) return text + " (trained by Linkscope)";
    const std::string method(methodName(*start.runMethod));
    return text + (pretrainsEncoder(*start.runMethod) || *start.runMethod == Method::MaskedLm
                       ? " (pretrained by Linkscope: " + method + ")"
                       : " (trained by Linkscope: " + method + ")");
}

// The run directory `folder` is, or whose model/ it is (RUN/model, the Hugging Face checkpoint
// a run keeps); empty for any other folder.
std::filesystem::path runOfFolder(const std::filesystem::path& folder) {
    if (isRunDirectory(folder)) return folder;
    std::filesystem::path normal = folder.lexically_normal();
    if (!normal.has_filename()) normal = normal.parent_path();  // "RUN/model/"
    if (normal.filename() != modelDirectory({}).filename()) return {};
    const std::filesystem::path parent = normal.has_parent_path() ? normal.parent_path() : std::filesystem::path(".");
    return isRunDirectory(parent) ? parent : std::filesystem::path();
}

}  // namespace

EncoderStart compactStart() { return {}; }

EncoderStart startOfFolder(const std::filesystem::path& folder) {
    EncoderStart start;
    start.folder = folder;
    const std::filesystem::path run = runOfFolder(folder);
    if (run.empty()) {
        start.kind = EncoderStart::Kind::Checkpoint;
        return start;
    }
    start.kind = EncoderStart::Kind::LinkscopeRun;
    try {
        start.runMethod = loadRunPreset(run, readRunInfo(run)).method;
    } catch (const std::exception&) {
        // an unreadable run folder is reported where its encoder is loaded
    }
    return start;
}

EncoderStart resumeStart(const std::filesystem::path& run) {
    EncoderStart start;
    start.kind = EncoderStart::Kind::Resume;
    start.folder = run;
    start.runSchedule = readRunInfo(run).schedule;
    return start;
}

StartKind contextStartKind(const EncoderStart& start) {
    switch (start.kind) {
        case EncoderStart::Kind::Compact:
            return StartKind::Scratch;
        case EncoderStart::Kind::LinkscopeRun:
            if (start.runMethod == Method::SelfAlignment) return StartKind::NamesOnly;
            if (start.runMethod == Method::ContextAlignment) return StartKind::ContextAligned;
            return StartKind::Unknown;
        case EncoderStart::Kind::Checkpoint:
        case EncoderStart::Kind::Resume:
            return StartKind::Unknown;
    }
    return StartKind::Unknown;
}

ScheduleChoice chooseSchedule(const TrainingPreset& preset, const EncoderStart& start, std::string_view asked) {
    if (!asked.empty()) return choice(asked, "as asked");
    switch (start.kind) {
        case EncoderStart::Kind::Compact:
            if (has(preset, kShort))
                return choice(kShort,
                              "it starts from a new compact encoder (random weights), and \"short\" is the schedule "
                              "chosen on dev for that start; the paper's schedule is made for a start that is already "
                              "a trained BERT");
            return choice(kPaper, "it starts from a new compact encoder (random weights), and preset \"" + preset.name +
                                      "\" has no \"short\" schedule");
        case EncoderStart::Kind::LinkscopeRun:
            if (has(preset, kShortPretrained))
                return choice(kShortPretrained, "it starts from " + describeRun(start) +
                                                    ", and \"short-pretrained\" is this preset's schedule for a "
                                                    "pretrained start");
            if (has(preset, kShort))
                return choice(kShort,
                              "it starts from " + describeRun(start) +
                                  ", and the preset has no \"short-pretrained\": \"short\", the schedule chosen "
                                  "on dev for Linkscope's compact encoder");
            return choice(kPaper, "it starts from " + describeRun(start) + ", and preset \"" + preset.name +
                                      "\" has neither \"short-pretrained\" nor \"short\"");
        case EncoderStart::Kind::Checkpoint:
            return choice(kPaper, "it starts from the checkpoint " + start.folder.string() +
                                      ", not a Linkscope run: the paper's schedule, made for a start that is "
                                      "already a trained BERT");
        case EncoderStart::Kind::Resume:
            return choice(start.runSchedule.empty() ? kPaper : std::string_view(start.runSchedule),
                          "the schedule the run was started with");
    }
    return choice(kPaper, "the paper's schedule");
}

}  // namespace linkscope::train
