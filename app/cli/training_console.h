#pragma once
// The console side of the commands that train (train, pretrain): Ctrl-C stops at the next step
// with a checkpoint, progress on stderr (live on a terminal, periodic in a log), one line per
// epoch, the summary.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "console_progress.h"
#include "encoder/text_encoder.h"
#include "train/trainer.h"

namespace linkscope::cli {

/// Installs a SIGINT handler for its lifetime (the previous one is restored); the first Ctrl-C
/// sets requested(), a second one kills the process (SA_RESETHAND).
class InterruptGuard {
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    bool requested() const noexcept;

private:
    struct sigaction previous_ {};
    bool installed_ = false;
};

/// Where the presets are: $LINKSCOPE_MODELS_DIR, the source tree (a build that is not
/// installed), beside an installed executable, the configured install prefix.
std::optional<std::filesystem::path> modelsDirectory();

/// A word of a shell command line, quoted when it needs to be.
std::string shellWord(const std::string& word);
std::string formatSeconds(double seconds);
std::string formatAccuracy(double accuracy);                            ///< "-" for a negative (none)
encoder::DevicePreference devicePreference(const std::string& device);  ///< "auto", "cpu", "cuda"
/// The compact encoder's configuration file: `given` (--compact-preset), else compact-encoder.json
/// of the models folder; Error saying how to give one when there is neither.
std::filesystem::path compactPresetFile(const std::filesystem::path& given,
                                        const std::optional<std::filesystem::path>& models);

/// One line per epoch on stdout (loss, dev Acc@1, seconds, a collapse warning) and the progress
/// within the epoch on stderr (console_progress.h): on a terminal a live line overwritten in
/// place, otherwise a "progress: epoch ..." line at most every interval.
class ProgressPrinter {
public:
    ProgressPrinter() = default;

    void operator()(const train::TrainingProgress& progress) {
        const auto now = std::chrono::steady_clock::now();
        if (progress.stage == "Training") {
            if (progress.epoch != epoch_) startEpoch(progress.epoch, now);
            lossSum_ += progress.loss;
            ++losses_;
            epochs_ = progress.epochs;
        }
        metric_ = progress.validationMetric;
        if (progress.devAccuracy) {
            clearLiveLine();
            if (progress.epoch == 0) {
                std::cout << "untrained: " << metric_ << ' ' << formatAccuracy(*progress.devAccuracy) << std::endl;
            } else {
                printEpoch(progress.epoch, progress.devAccuracy, now);
            }
            if (!progress.warning.empty()) std::cout << "warning: " << progress.warning << std::endl;
            return;
        }
        showLive(progress);
    }

    /// The last epoch line of a run without dev set (no validation event ends its epochs); a
    /// cancelled run's unfinished epoch gets none.
    void finish(bool cancelled) {
        progressLine_.finish();
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
        line << "  " << metric_ << ' ' << (accuracy ? formatAccuracy(*accuracy) : std::string("-"));
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
        progressLine_.show(line.str());
    }

    // The live line shares the terminal's screen with the epoch lines on stdout.
    void clearLiveLine() { progressLine_.clear(); }

    ConsoleProgress progressLine_;
    std::size_t epoch_ = 0;
    std::size_t epochs_ = 0;
    std::size_t printed_ = 0;
    TimePoint epochStart_{};
    double lossSum_ = 0.0;
    std::size_t losses_ = 0;
    std::string metric_ = "dev Acc@1";  ///< what the validation measures (the trainer says)
};

/// dev Acc@1 (or `metric`) untrained -> best, epochs, wall time, the model's folder, a collapse warning.
void printSummary(const train::TrainingResult& result, const std::filesystem::path& run,
                  const std::string& metric = "dev Acc@1");

/// Runs the trainer (train and pretrain) with Ctrl-C and the console's progress lines. Cancelled:
/// says where the checkpoint is and gives `resumeCommand`, then throws Cancelled (exit status
/// 130); finished: prints the summary and returns the result.
train::TrainingResult trainOnConsole(const train::TrainingPreset& preset, encoder::TextEncoder encoder,
                                     const train::TrainingInputs& inputs, train::TrainerOptions options,
                                     const std::string& resumeCommand);

}  // namespace linkscope::cli
