// The console side of the commands that train (train, pretrain): Ctrl-C, the live progress
// line and the epoch lines, the summary, where the presets are.
#include "training_console.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string_view>

#include "train/kb_holdout.h"
#include "train/run_directory.h"
#include "train/validation_summary.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::cli {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Ctrl-C. A signal handler may only touch lock-free atomics of static storage, so this flag is
// the one piece of global state here; InterruptGuard installs the handler for the duration of
// the training and restores the previous one. SA_RESETHAND puts the default action back after
// the first Ctrl-C, so a second one kills a run that does not come to its checkpoint.
namespace {
std::atomic<bool> interruptRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void onInterrupt(int) { interruptRequested.store(true); }
}  // namespace

InterruptGuard::InterruptGuard() {
    interruptRequested.store(false);
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    installed_ = sigaction(SIGINT, &action, &previous_) == 0;
}

InterruptGuard::~InterruptGuard() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
}

bool InterruptGuard::requested() const noexcept { return interruptRequested.load(); }

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
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("_./-=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) return word;
    std::string quoted = "'";
    for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
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
// seconds) and the progress within an epoch on stderr (console_progress.h).

encoder::DevicePreference devicePreference(const std::string& device) {
    if (device == "cpu") return encoder::DevicePreference::Cpu;
    if (device == "cuda") return encoder::DevicePreference::Cuda;
    return encoder::DevicePreference::Auto;
}

fs::path compactPresetFile(const fs::path& given, const std::optional<fs::path>& models) {
    if (!given.empty()) return given;
    if (!models)
        throw Error(
            "no models folder with compact-encoder.json was found (set LINKSCOPE_MODELS_DIR or give "
            "--compact-preset FILE)");
    return *models / "compact-encoder.json";
}

void printSummary(const train::TrainingResult& result, const fs::path& run, const std::string& metric) {
    const train::RunInfo& info = result.info;
    const auto& validation = info.validation;
    const bool heldOut = validation && validation->source == train::kValidationFromKbHoldout;
    std::cout << (heldOut ? train::validationMetricName(validation->source) : metric) << ": ";
    if (info.bestDevAccuracy < 0.0) {
        std::cout << "not validated, the last epoch's model is kept\n";
    } else {
        std::cout << "untrained " << formatAccuracy(info.untrainedDevAccuracy) << " -> best "
                  << formatAccuracy(info.bestDevAccuracy) << " (epoch " << info.bestEpoch << ")\n";
    }
    std::cout << "epochs: " << info.epochsDone << ", wall time " << formatSeconds(info.seconds) << " on " << info.device
              << '\n';
    std::cout << "model: " << train::modelDirectory(run).string() << '\n';
    if (heldOut)
        std::cout << "validated on the KB: no dev set was given, so " << validation->queries << " of its "
                  << validation->eligibleConcepts << " concepts with two names or more were held out of training ("
                  << validation->holdoutShare * 100.0 << " % of them, at least " << train::kKbHoldoutFloor
                  << " where the KB allows, at most " << train::kKbHoldoutMost
                  << "); each is asked for by one of its names, linked against the other names\n";
    if (validation && validation->sparseAcc1 >= 0.0)
        std::cout << "sparse linker (TF-IDF) on the same queries: Acc@1 " << formatAccuracy(validation->sparseAcc1)
                  << ", the kept model: " << formatAccuracy(validation->keptAcc1) << '\n';
    if (validation)
        for (const auto& warning : validation->warnings) std::cout << "WARNING: " << warning << '\n';
    if (!info.collapse.empty())
        std::cout << "WARNING: the kept model is no linker: " << info.collapse
                  << ". It proposes (nearly) one entity for every mention; do not use it for linking.\n";
    else if (info.collapsedValidations != 0)
        std::cout
            << "note: " << info.collapsedValidations
            << " validation(s) of this run found a collapsed model (log.jsonl: \"collapsed\": true); the kept model "
               "is not one of them\n";
}

train::TrainingResult trainOnConsole(const train::TrainingPreset& preset, encoder::TextEncoder encoder,
                                     const train::TrainingInputs& inputs, train::TrainerOptions options,
                                     const std::string& resumeCommand) {
    InterruptGuard interrupt;
    ProgressPrinter printer;
    options.progress = [&printer](const train::TrainingProgress& progress) { printer(progress); };
    options.cancelled = [&interrupt] { return interrupt.requested(); };
    const train::TrainingResult result = train::trainModel(preset, std::move(encoder), inputs, options);
    printer.finish(result.cancelled);
    if (result.cancelled) {
        std::cerr << "cancelled after " << result.info.epochsDone << " epoch(s); the checkpoint is in "
                  << train::checkpointDirectory(options.runDirectory).string() << "\nresume with: " << resumeCommand
                  << '\n';
        throw Cancelled();  // main() exits with status 130
    }
    printSummary(result, options.runDirectory,
                 train::validatesOwnData(preset.method) ? "held-out masked-token accuracy" : "dev Acc@1");
    return result;
}

}  // namespace linkscope::cli
