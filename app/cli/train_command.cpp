// linkscope-cli train --preset NAME|FILE [--schedule short|paper] --train INPUT... [--dev INPUT...]
//                     [--corpus INPUT --split-pmids train=LIST [--split-pmids dev=LIST]] [--corpus-format F]
//                     --kb FILE [--kb-format ..] [UMLS filters] [--types ..] [--spelling FILE]
//                     (--model DIR | --compact [--compact-preset FILE]) --out RUN_DIR [--resume]
//                     [--device auto|cpu|cuda] [--checkpoint-steps N] [--no-abbreviations] [--no-composites]
//
// Trains an encoder with one method's preset (models/<name>.json) and writes a run directory
// (train/run_directory.h): the best model by dev Acc@1, a JSONL log, checkpoints. One line per
// epoch goes to standard output; progress to standard error (a live line on a terminal, a
// periodic "progress: ..." line in a log).
// Ctrl-C stops at the next step with a checkpoint (exit status 130); `--resume` continues.
// Without --schedule, the start chooses it (train/schedule_choice.h) and the command says why.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "commands.h"
#include "corpus_arguments.h"
#include "dense_engine.h"
#include "encoder/compact_encoder.h"
#include "eval/queries.h"
#include "kb_arguments.h"
#include "model_warnings.h"
#include "project/loaded_project.h"
#include "text/spelling_map.h"
#include "train/method_inputs.h"
#include "train/run_directory.h"
#include "train/run_recovery.h"
#include "train/schedule_choice.h"
#include "train/trainer.h"
#include "train/training_preset.h"
#include "training_console.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::cli {
namespace {

namespace fs = std::filesystem;

struct TrainArguments {
    std::string preset;
    std::string schedule;  ///< empty: chosen by the start (schedule_choice.h), or the resumed run's
    std::vector<fs::path> train;
    std::vector<fs::path> dev;
    fs::path corpus;
    CorpusArguments corpusOptions;
    fs::path kb;
    std::string kbFormat = "auto";
    KbFilterArguments kbFilters;
    std::vector<std::string> types;
    fs::path spelling;
    fs::path model;
    bool compact = false;
    fs::path compactPreset;
    fs::path out;
    bool resume = false;
    std::string device = "auto";
    std::size_t checkpointSteps = 0;
    bool noAbbreviations = false;
    bool noComposites = false;
};

// The command that resumes this run: the data options again (they are not stored in the run),
// the preset and encoder from the run itself.
std::string resumeCommand(const TrainArguments& args) {
    std::string command = "linkscope-cli train --resume --out " + shellWord(args.out.string());
    for (const auto& file : args.train) command += " --train " + shellWord(file.string());
    for (const auto& file : args.dev) command += " --dev " + shellWord(file.string());
    if (!args.corpus.empty()) command += " --corpus " + shellWord(args.corpus.string());
    for (const auto& word : args.corpusOptions.commandWords()) command += " " + shellWord(word);
    command += " --kb " + shellWord(args.kb.string());
    if (args.kbFormat != "auto") command += " --kb-format " + args.kbFormat;
    for (const auto& word : args.kbFilters.commandWords()) command += " " + shellWord(word);
    for (const auto& type : args.types) command += " --types " + shellWord(type);
    if (!args.spelling.empty()) command += " --spelling " + shellWord(args.spelling.string());
    if (args.device != "auto") command += " --device " + args.device;
    if (args.checkpointSteps != 0) command += " --checkpoint-steps " + std::to_string(args.checkpointSteps);
    if (args.noAbbreviations) command += " --no-abbreviations";
    if (args.noComposites) command += " --no-composites";
    return command;
}

std::vector<std::string> markersOf(const train::TrainingPreset& preset) {
    std::vector<std::string> markers;
    const auto [open, close] = train::markerTokens(preset.markers);
    for (const auto token : {open, close})
        if (!token.empty()) markers.emplace_back(token);
    return markers;
}

/// The preset and schedule of a new run, or of the run being resumed.
struct PresetChoice {
    train::TrainingPreset preset;
    std::string schedule;     ///< what the trainer applies to `preset`
    std::string description;  ///< for the first line: which preset and schedule
    std::string reason;       ///< why that schedule (schedule_choice.h), printed and kept in run.json
};

/// What the encoder of a new run starts from: --compact, or the --model folder as it is on disk.
train::EncoderStart newRunStart(const TrainArguments& args) {
    return args.compact ? train::compactStart() : train::startOfFolder(args.model);
}

constexpr const char* kResumedReason = "the schedule the run was started with";

PresetChoice choosePreset(const TrainArguments& args, const std::optional<fs::path>& models) {
    if (!args.resume) {
        if (args.preset.empty()) throw Error("--preset NAME|FILE is needed (or --resume to continue a run)");
        train::TrainingPreset preset = train::findPreset(args.preset, models.value_or(fs::path()));
        train::ScheduleChoice chosen = train::chooseSchedule(preset, newRunStart(args), args.schedule);
        std::string description = "preset \"" + preset.name + "\", schedule " + chosen.schedule;
        return {std::move(preset), std::move(chosen.schedule), std::move(description), std::move(chosen.reason)};
    }
    if (!train::isRunDirectory(args.out))
        throw Error("--resume: " + args.out.string() + " is not a run directory (it has no run.json and preset.json)");
    // A kill inside a checkpoint's swap leaves the copy to resume from beside checkpoint/: taken
    // back before anything here reads the checkpoint (run_recovery.h).
    train::recoverInterruptedSwaps(args.out);
    if (!fs::exists(train::checkpointDirectory(args.out) / "state.json"))
        throw Error("--resume: " + args.out.string() + " has no checkpoint to resume from (" +
                    train::checkpointDirectory(args.out).string() + "); start a new run in another folder");
    const train::RunInfo info = train::readRunInfo(args.out);
    if (!args.schedule.empty() && args.schedule != info.schedule)
        throw Error("--resume: the run was started with schedule \"" + info.schedule + "\", not \"" + args.schedule +
                    "\"");
    if (!args.preset.empty()) {
        // The trainer checks that this preset, with the run's schedule applied, is the run's.
        return {train::findPreset(args.preset, models.value_or(fs::path())), info.schedule,
                "resuming with preset \"" + args.preset + "\", schedule " + info.schedule, kResumedReason};
    }
    // preset.json holds the schedule already applied as its "training": the paper schedule of
    // the saved preset is the one the run trains with.
    // It is named by run.json (preset.json alone reads back as "preset").
    train::TrainingPreset preset = train::loadRunPreset(args.out, info);
    std::string description = "resuming with the run's preset \"" + preset.name + "\", schedule " + info.schedule +
                              " (" + std::to_string(info.epochsDone) + " epoch(s) done)";
    return {std::move(preset), "paper", std::move(description), kResumedReason};
}

encoder::TextEncoder makeEncoder(const TrainArguments& args, const train::TrainingPreset& preset,
                                 const std::optional<fs::path>& models, const kb::KnowledgeBase& kb,
                                 const Corpus& trainCorpus, const Corpus* devCorpus) {
    encoder::EncoderOptions options;
    options.device = devicePreference(args.device);
    options.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    options.pooling = preset.pooling;
    const std::vector<std::string> markers = markersOf(preset);

    if (args.resume) return encoder::TextEncoder::load(train::checkpointDirectory(args.out) / "model", options);

    if (args.compact) {
        encoder::CompactEncoderPreset compact =
            encoder::CompactEncoderPreset::load(compactPresetFile(args.compactPreset, models));
        // The method decides the head and the pooling; the compact preset the architecture.
        compact.config.projectionDim = preset.projectionDim;
        compact.config.projectionHead = preset.projectionHead;
        compact.config.pooling = preset.pooling;
        std::vector<const Corpus*> corpora = {&trainCorpus};
        if (devCorpus) corpora.push_back(devCorpus);
        const std::vector<std::string> texts = encoder::vocabularyTexts(kb, corpora);
        return encoder::createCompactEncoder(compact, texts, markers, options);
    }

    encoder::TextEncoder encoder = encoder::TextEncoder::load(args.model, options);
    printTokenizerWarnings(args.model);
    std::vector<std::string> missing;
    for (const auto& marker : markers)
        if (!encoder.tokenizer().tokenId(marker)) missing.push_back(marker);
    if (!missing.empty()) encoder.addTokens(missing, preset.seed);
    return encoder;
}

void runTrain(const TrainArguments& args) {
    if (args.resume && (args.compact || !args.model.empty()))
        throw Error("--resume continues from the run's checkpoint: leave out --model and --compact");
    if (!args.resume && args.compact && !args.model.empty())
        throw Error("give either --model DIR or --compact, not both");
    if (!args.resume && !args.compact && args.model.empty())
        throw Error("the encoder to train: --model DIR (a checkpoint) or --compact (from scratch)");
    if (!args.compactPreset.empty() && !args.compact) throw Error("--compact-preset goes with --compact");

    const std::optional<fs::path> models = modelsDirectory();
    PresetChoice choice = choosePreset(args, models);
    // The schedule must exist before hours of loading and training (Error lists the names).
    (void)choice.preset.schedule(choice.schedule);
    // A method that reads mentions in context, started from an encoder that has not: say so.
    if (!args.resume) {
        const train::StartKind start = train::contextStartKind(newRunStart(args));
        if (const std::string advice = train::contextStartAdvice(choice.preset.scheduled(choice.schedule), start);
            !advice.empty())
            std::cerr << "warning: " << advice << std::endl;
    }

    // The splits: files, or PMID lists over one --corpus (MedMentions), never both for one split.
    constexpr std::string_view kSplits[] = {"train", "dev"};
    if (args.corpusOptions.splitByPmids() != !args.corpus.empty())
        throw Error("--corpus and --split-pmids go together (the lists select the splits' documents from the corpus)");
    std::map<std::string, Corpus> listed;
    if (!args.corpus.empty()) listed = args.corpusOptions.readSplits(args.corpus, kSplits);
    if (listed.contains("train") == !args.train.empty())
        throw Error(args.train.empty()
                        ? "no training corpus: give --train INPUT or --corpus INPUT --split-pmids train=LIST"
                        : "the train split is given twice: by --train and by --split-pmids train=...");
    if (listed.contains("dev") && !args.dev.empty())
        throw Error("the dev split is given twice: by --dev and by --split-pmids dev=...");

    const KbReference reference = kbReferenceOf(args.kb, args.kbFormat, args.kbFilters);
    std::vector<Diagnostic> diagnostics;
    const kb::KnowledgeBase kb = loadKnowledgeBase(reference, diagnostics);
    const Corpus trainCorpus =
        listed.contains("train") ? std::move(listed.at("train")) : args.corpusOptions.read(args.train);
    std::optional<Corpus> devCorpus;
    if (listed.contains("dev"))
        devCorpus = std::move(listed.at("dev"));
    else if (!args.dev.empty())
        devCorpus = args.corpusOptions.read(args.dev);
    std::shared_ptr<const text::SpellingMap> spelling;
    if (!args.spelling.empty())
        spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));

    train::TrainingInputs inputs;
    inputs.kb = &kb;
    inputs.train = &trainCorpus;
    inputs.dev = devCorpus ? &*devCorpus : nullptr;
    inputs.queries.types = args.types;
    inputs.queries.expandAbbreviations = !args.noAbbreviations;
    inputs.queries.splitComposites = !args.noComposites;
    inputs.queries.normalizer = eval::bioSynQueryNormalizer(spelling);

    encoder::TextEncoder encoder = makeEncoder(args, choice.preset, models, kb, trainCorpus, inputs.dev);

    std::cout << "training " << train::methodName(choice.preset.method) << " (" << choice.description << ") into "
              << args.out.string() << std::endl;
    std::cout << "schedule " << choice.schedule << ": " << choice.reason << std::endl;

    train::TrainerOptions options;
    options.runDirectory = args.out;
    options.schedule = choice.schedule;
    options.scheduleReason = choice.reason;
    options.resume = args.resume;
    options.device = devicePreference(args.device);
    options.checkpointSteps = args.checkpointSteps;

    trainOnConsole(choice.preset, std::move(encoder), inputs, options, resumeCommand(args));
}

}  // namespace

void addTrainCommand(CLI::App& app) {
    auto args = std::make_shared<TrainArguments>();
    CLI::App* cmd = app.add_subcommand("train", std::string(denseOnlyDescription("train")));
    cmd->add_option("--preset", args->preset,
                    "Method preset: a name of the models folder (biosyn, belhd, ...) or a preset file");
    cmd->add_option("--schedule", args->schedule,
                    "Schedule of the preset: paper, short or another it defines (default: chosen by the start: short "
                    "from --compact, short-pretrained or short from a run folder, paper from a downloaded checkpoint)");
    cmd->add_option("--train", args->train, "Training corpus (PubTator, BioC XML or brat folder)")
        ->check(CLI::ExistingPath);
    cmd->add_option("--dev", args->dev, "Development corpus: validated after every epoch, the best model kept")
        ->check(CLI::ExistingPath);
    cmd->add_option("--corpus", args->corpus, "One corpus holding the splits, with --split-pmids (MedMentions)")
        ->check(CLI::ExistingPath);
    args->corpusOptions.addOptions(*cmd, "train, dev");
    cmd->add_option("--kb", args->kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb-format", args->kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    args->kbFilters.addOptions(*cmd);
    cmd->add_option(
        "--types", args->types,
        "Only mentions of these types (e.g. Disease for BC5CDR-Disease, T047, or st21pv for MedMentions' 21)");
    cmd->add_option("--spelling", args->spelling,
                    "Spelling map `misspelling||correction` (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--model", args->model,
                    "Encoder to fine-tune: a Hugging Face BERT or XLM-R checkpoint folder, or a run folder (e.g. what "
                    "`pretrain --out` wrote)")
        ->check(CLI::ExistingDirectory);
    cmd->add_flag("--compact", args->compact,
                  "Train the compact encoder from scratch (vocabulary from the KB and corpora)");
    cmd->add_option("--compact-preset", args->compactPreset,
                    "Compact encoder configuration (default: models/compact-encoder.json)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--out", args->out, "Run directory to create (or to resume with --resume)")->required();
    cmd->add_flag("--resume", args->resume, "Continue the run in --out from its checkpoint");
    cmd->add_option("--device", args->device, "auto (CUDA when available), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_option("--checkpoint-steps", args->checkpointSteps,
                    "Also write a checkpoint every N optimizer steps (0: at the end of every epoch only)");
    cmd->add_flag("--no-abbreviations", args->noAbbreviations, "Do not expand abbreviations in mentions");
    cmd->add_flag("--no-composites", args->noComposites, "Do not split composite mentions");
    cmd->callback([args] { runTrain(*args); });
}

}  // namespace linkscope::cli
