// linkscope-cli train --preset NAME|FILE [--schedule short|paper] --train FILE... [--dev FILE...]
//                     --kb FILE [--kb-format ..] [--types ..] [--spelling FILE]
//                     (--model DIR | --compact [--compact-preset FILE]) --out RUN_DIR [--resume]
//                     [--device auto|cpu|cuda] [--checkpoint-steps N] [--no-abbreviations] [--no-composites]
//
// Trains an encoder with one method's preset (models/<name>.json) and writes a run directory
// (train/run_directory.h): the best model by dev Acc@1, a JSONL log, checkpoints. One line per
// epoch goes to standard output; a live progress line to standard error when it is a terminal.
// Ctrl-C stops at the next step with a checkpoint (exit status 130); `--resume` continues.
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
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "commands.h"
#include "corpus/pubtator_reader.h"
#include "encoder/compact_encoder.h"
#include "eval/queries.h"
#include "project/loaded_project.h"
#include "text/spelling_map.h"
#include "train/method_inputs.h"
#include "train/run_directory.h"
#include "train/trainer.h"
#include "train/training_preset.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::cli {
namespace {

namespace fs = std::filesystem;

struct TrainArguments {
    std::string preset;
    std::string schedule;  ///< empty: "paper", or the schedule of the run being resumed
    std::vector<fs::path> train;
    std::vector<fs::path> dev;
    fs::path kb;
    std::string kbFormat = "auto";
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

// ---------------------------------------------------------------------------------------------
// Ctrl-C. A signal handler may only touch lock-free atomics of static storage, so this flag is
// the one piece of global state here; InterruptGuard installs the handler for the duration of
// the training and restores the previous one. SA_RESETHAND puts the default action back after
// the first Ctrl-C, so a second one kills a run that does not come to its checkpoint.
std::atomic<bool> interruptRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void onInterrupt(int) { interruptRequested.store(true); }

class InterruptGuard {
public:
    InterruptGuard() {
        interruptRequested.store(false);
        struct sigaction action {};
        action.sa_handler = onInterrupt;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        installed_ = sigaction(SIGINT, &action, &previous_) == 0;
    }
    ~InterruptGuard() {
        if (installed_) sigaction(SIGINT, &previous_, nullptr);
    }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    bool requested() const noexcept { return interruptRequested.load(); }

private:
    struct sigaction previous_ {};
    bool installed_ = false;
};

// ---------------------------------------------------------------------------------------------
// Where the presets are: $LINKSCOPE_MODELS_DIR, the source tree (a build that is not
// installed), beside an installed executable (<prefix>/share/linkscope/models), the
// configured install prefix.
std::optional<fs::path> modelsDirectory() {
#ifdef LINKSCOPE_SOURCE_MODELS_DIR
    const fs::path sourceTree = LINKSCOPE_SOURCE_MODELS_DIR;
#else
    const fs::path sourceTree;
#endif
#ifdef LINKSCOPE_INSTALL_MODELS_DIR
    const fs::path installed = LINKSCOPE_INSTALL_MODELS_DIR;
#else
    const fs::path installed;
#endif
    return train::findStandardModelsDirectory(sourceTree, installed);
}

// A word of a shell command line, quoted when it needs to be.
std::string shellWord(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./-=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) return word;
    std::string quoted = "'";
    for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// The command that resumes this run: the data options again (they are not stored in the run),
// the preset and encoder from the run itself.
std::string resumeCommand(const TrainArguments& args) {
    std::string command = "linkscope-cli train --resume --out " + shellWord(args.out.string());
    for (const auto& file : args.train) command += " --train " + shellWord(file.string());
    for (const auto& file : args.dev) command += " --dev " + shellWord(file.string());
    command += " --kb " + shellWord(args.kb.string());
    if (args.kbFormat != "auto") command += " --kb-format " + args.kbFormat;
    for (const auto& type : args.types) command += " --types " + shellWord(type);
    if (!args.spelling.empty()) command += " --spelling " + shellWord(args.spelling.string());
    if (args.device != "auto") command += " --device " + args.device;
    if (args.checkpointSteps != 0) command += " --checkpoint-steps " + std::to_string(args.checkpointSteps);
    if (args.noAbbreviations) command += " --no-abbreviations";
    if (args.noComposites) command += " --no-composites";
    return command;
}

std::string formatSeconds(double seconds) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(seconds < 10 ? 1 : 0) << seconds << " s";
    return out.str();
}

std::string formatAccuracy(double accuracy) {
    if (accuracy < 0.0) return "-";
    std::ostringstream out;
    out << std::fixed << std::setprecision(4) << accuracy;
    return out.str();
}

// ---------------------------------------------------------------------------------------------
// What the user sees while the trainer works: one line per epoch on stdout (loss, dev Acc@1,
// seconds) and, on a terminal, a live line on stderr that is overwritten in place.
class ProgressPrinter {
public:
    ProgressPrinter() : live_(isatty(STDERR_FILENO) != 0) {}

    void operator()(const train::TrainingProgress& progress) {
        const auto now = std::chrono::steady_clock::now();
        if (progress.stage == "Training") {
            if (progress.epoch != epoch_) startEpoch(progress.epoch, now);
            lossSum_ += progress.loss;
            ++losses_;
            epochs_ = progress.epochs;
        }
        if (progress.devAccuracy) {
            clearLiveLine();
            if (progress.epoch == 0) {
                std::cout << "untrained: dev Acc@1 " << formatAccuracy(*progress.devAccuracy) << std::endl;
            } else {
                printEpoch(progress.epoch, progress.devAccuracy, now);
            }
            return;
        }
        if (live_) showLive(progress);
    }

    /// The last epoch line of a run without dev set (no validation event ends its epochs); a
    /// cancelled run's unfinished epoch gets none.
    void finish(bool cancelled) {
        clearLiveLine();
        if (!cancelled && epoch_ != 0 && printed_ != epoch_)
            printEpoch(epoch_, std::nullopt, std::chrono::steady_clock::now());
    }

private:
    using TimePoint = std::chrono::steady_clock::time_point;

    void startEpoch(std::size_t epoch, TimePoint now) {
        // Without a dev set no validation closes an epoch: the next one's first step does.
        if (epoch_ != 0 && printed_ != epoch_) printEpoch(epoch_, std::nullopt, now);
        epoch_ = epoch;
        epochStart_ = now;
        lossSum_ = 0.0;
        losses_ = 0;
    }

    void printEpoch(std::size_t epoch, std::optional<double> accuracy, TimePoint now) {
        clearLiveLine();
        std::ostringstream line;
        line << "epoch " << epoch << '/' << epochs_ << "  loss ";
        if (losses_ != 0 && epoch == epoch_)
            line << std::fixed << std::setprecision(4) << lossSum_ / double(losses_);
        else
            line << '-';
        line << "  dev Acc@1 " << (accuracy ? formatAccuracy(*accuracy) : std::string("-"));
        if (epoch == epoch_) line << "  " << formatSeconds(std::chrono::duration<double>(now - epochStart_).count());
        std::cout << line.str() << std::endl;
        printed_ = epoch;
    }

    void showLive(const train::TrainingProgress& progress) {
        std::ostringstream line;
        line << "epoch " << progress.epoch << '/' << progress.epochs << "  " << progress.stage << ' '
             << static_cast<int>(progress.stageFraction * 100.0) << " %";
        if (progress.stage == "Training") {
            line << "  step " << progress.step << '/' << progress.stepsPerEpoch << "  loss " << std::setprecision(4)
                 << progress.loss << "  " << std::setprecision(3) << progress.examplesPerSecond << " ex/s  eta "
                 << formatSeconds(progress.etaSeconds);
        }
        std::string text = line.str();
        const std::size_t width = std::max(text.size(), shown_);
        shown_ = text.size();
        text.resize(width, ' ');
        std::cerr << '\r' << text << std::flush;
    }

    void clearLiveLine() {
        if (!live_ || shown_ == 0) return;
        std::cerr << '\r' << std::string(shown_, ' ') << '\r' << std::flush;
        shown_ = 0;
    }

    bool live_;
    std::size_t shown_ = 0;  ///< characters of the live line on screen
    std::size_t epoch_ = 0;
    std::size_t epochs_ = 0;
    std::size_t printed_ = 0;
    TimePoint epochStart_{};
    double lossSum_ = 0.0;
    std::size_t losses_ = 0;
};

// ---------------------------------------------------------------------------------------------

encoder::DevicePreference devicePreference(const std::string& device) {
    if (device == "cpu") return encoder::DevicePreference::Cpu;
    if (device == "cuda") return encoder::DevicePreference::Cuda;
    return encoder::DevicePreference::Auto;
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
};

PresetChoice choosePreset(const TrainArguments& args, const std::optional<fs::path>& models) {
    if (!args.resume) {
        if (args.preset.empty()) throw Error("--preset NAME|FILE is needed (or --resume to continue a run)");
        train::TrainingPreset preset = train::findPreset(args.preset, models.value_or(fs::path()));
        const std::string schedule = args.schedule.empty() ? "paper" : args.schedule;
        std::string description = "preset \"" + preset.name + "\", schedule " + schedule;
        return {std::move(preset), schedule, std::move(description)};
    }
    if (!train::isRunDirectory(args.out))
        throw Error("--resume: " + args.out.string() + " is not a run directory (it has no run.json and preset.json)");
    if (!fs::exists(train::checkpointDirectory(args.out) / "state.json"))
        throw Error("--resume: " + args.out.string() + " has no checkpoint to resume from (" +
                    train::checkpointDirectory(args.out).string() + "); start a new run in another folder");
    const train::RunInfo info = train::readRunInfo(args.out);
    if (!args.schedule.empty() && args.schedule != info.schedule)
        throw Error("--resume: the run was started with schedule \"" + info.schedule + "\", not \"" + args.schedule + "\"");
    if (!args.preset.empty()) {
        // The trainer checks that this preset, with the run's schedule applied, is the run's.
        return {train::findPreset(args.preset, models.value_or(fs::path())), info.schedule,
                "resuming with preset \"" + args.preset + "\", schedule " + info.schedule};
    }
    // preset.json holds the schedule already applied as its "training": the paper schedule of
    // the saved preset is the one the run trains with.
    // It is named by run.json (preset.json alone reads back as "preset").
    train::TrainingPreset preset = train::loadRunPreset(args.out, info);
    std::string description = "resuming with the run's preset \"" + preset.name + "\", schedule " + info.schedule +
                              " (" + std::to_string(info.epochsDone) + " epoch(s) done)";
    return {std::move(preset), "paper", std::move(description)};
}

encoder::TextEncoder makeEncoder(const TrainArguments& args, const train::TrainingPreset& preset,
                                 const std::optional<fs::path>& models, const kb::KnowledgeBase& kb, const Corpus& trainCorpus,
                                 const Corpus* devCorpus) {
    encoder::EncoderOptions options;
    options.device = devicePreference(args.device);
    options.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    options.pooling = preset.pooling;
    const std::vector<std::string> markers = markersOf(preset);

    if (args.resume) return encoder::TextEncoder::load(train::checkpointDirectory(args.out) / "model", options);

    if (args.compact) {
        fs::path file = args.compactPreset;
        if (file.empty()) {
            if (!models)
                throw Error("--compact: no models folder with compact-encoder.json was found (set LINKSCOPE_MODELS_DIR "
                            "or give --compact-preset FILE)");
            file = *models / "compact-encoder.json";
        }
        encoder::CompactEncoderPreset compact = encoder::CompactEncoderPreset::load(file);
        // The method decides the head and the pooling; the compact preset the architecture.
        compact.config.projectionDim = preset.projectionDim;
        compact.config.pooling = preset.pooling;
        std::vector<const Corpus*> corpora = {&trainCorpus};
        if (devCorpus) corpora.push_back(devCorpus);
        const std::vector<std::string> texts = encoder::vocabularyTexts(kb, corpora);
        return encoder::createCompactEncoder(compact, texts, markers, options);
    }

    encoder::TextEncoder encoder = encoder::TextEncoder::load(args.model, options);
    std::vector<std::string> missing;
    for (const auto& marker : markers)
        if (!encoder.tokenizer().tokenId(marker)) missing.push_back(marker);
    if (!missing.empty()) encoder.addTokens(missing, preset.seed);
    return encoder;
}

void printSummary(const train::TrainingResult& result, const fs::path& run) {
    const train::RunInfo& info = result.info;
    std::cout << "dev Acc@1: ";
    if (info.bestDevAccuracy < 0.0) {
        std::cout << "no dev set, the last epoch's model is kept\n";
    } else {
        std::cout << "untrained " << formatAccuracy(info.untrainedDevAccuracy) << " -> best "
                  << formatAccuracy(info.bestDevAccuracy) << " (epoch " << info.bestEpoch << ")\n";
    }
    std::cout << "epochs: " << info.epochsDone << ", wall time " << formatSeconds(info.seconds) << " on " << info.device
              << '\n';
    std::cout << "model: " << train::modelDirectory(run).string() << '\n';
}

void runTrain(const TrainArguments& args) {
    if (args.resume && (args.compact || !args.model.empty()))
        throw Error("--resume continues from the run's checkpoint: leave out --model and --compact");
    if (!args.resume && args.compact && !args.model.empty()) throw Error("give either --model DIR or --compact, not both");
    if (!args.resume && !args.compact && args.model.empty())
        throw Error("the encoder to train: --model DIR (a checkpoint) or --compact (from scratch)");
    if (!args.compactPreset.empty() && !args.compact) throw Error("--compact-preset goes with --compact");

    const std::optional<fs::path> models = modelsDirectory();
    PresetChoice choice = choosePreset(args, models);
    // The schedule must exist before hours of loading and training (Error lists the names).
    (void)choice.preset.schedule(choice.schedule);

    KbReference reference;
    reference.path = args.kb;
    reference.format = args.kbFormat == "auto" ? detectKbFormat(args.kb) : kbFormatFromName(args.kbFormat);
    std::vector<Diagnostic> diagnostics;
    const kb::KnowledgeBase kb = loadKnowledgeBase(reference, diagnostics);
    const Corpus trainCorpus = readPubTator(std::span<const fs::path>(args.train.data(), args.train.size()));
    std::optional<Corpus> devCorpus;
    if (!args.dev.empty()) devCorpus = readPubTator(std::span<const fs::path>(args.dev.data(), args.dev.size()));
    std::shared_ptr<const text::SpellingMap> spelling;
    if (!args.spelling.empty()) spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));

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

    InterruptGuard interrupt;
    ProgressPrinter printer;
    train::TrainerOptions options;
    options.runDirectory = args.out;
    options.schedule = choice.schedule;
    options.resume = args.resume;
    options.device = devicePreference(args.device);
    options.checkpointSteps = args.checkpointSteps;
    options.progress = [&printer](const train::TrainingProgress& progress) { printer(progress); };
    options.cancelled = [&interrupt] { return interrupt.requested(); };

    const train::TrainingResult result = train::trainModel(choice.preset, std::move(encoder), inputs, options);
    printer.finish(result.cancelled);
    if (result.cancelled) {
        std::cerr << "cancelled after " << result.info.epochsDone << " epoch(s); the checkpoint is in "
                  << train::checkpointDirectory(args.out).string() << "\nresume with: " << resumeCommand(args) << '\n';
        throw Cancelled();  // main() exits with status 130
    }
    printSummary(result, args.out);
}

}  // namespace

void addTrainCommand(CLI::App& app) {
    auto args = std::make_shared<TrainArguments>();
    CLI::App* cmd = app.add_subcommand("train", "Train an encoder with a method preset (BioSyn, BELHD, triplet, "
                                                "prototype-srn, kNN-BioEL) into a run directory");
    cmd->add_option("--preset", args->preset,
                    "Method preset: a name of the models folder (biosyn, belhd, ...) or a preset file");
    cmd->add_option("--schedule", args->schedule, "Schedule of the preset: paper (default) or short");
    cmd->add_option("--train", args->train, "Training corpus (PubTator)")->required()->check(CLI::ExistingFile);
    cmd->add_option("--dev", args->dev, "Development corpus: validated after every epoch, the best model kept")
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb", args->kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb-format", args->kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    cmd->add_option("--types", args->types, "Only mentions of these types (e.g. Disease for BC5CDR-Disease)");
    cmd->add_option("--spelling", args->spelling, "Spelling map `misspelling||correction` (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--model", args->model, "Encoder to fine-tune: a Hugging Face BERT checkpoint directory")
        ->check(CLI::ExistingDirectory);
    cmd->add_flag("--compact", args->compact, "Train the compact encoder from scratch (vocabulary from the KB and corpora)");
    cmd->add_option("--compact-preset", args->compactPreset, "Compact encoder configuration (default: models/compact-encoder.json)")
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
