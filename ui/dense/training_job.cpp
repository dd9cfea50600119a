#include "training_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "encoder/compact_encoder.h"
#include "encoder/text_encoder.h"
#include "eval/queries.h"
#include "project/loaded_project.h"
#include "train/method_inputs.h"
#include "train/trainer.h"
#include "train/training_preset.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

namespace fs = std::filesystem;

fs::path toPath(const QString& text) { return fs::path(text.toStdString()); }

int toInt(std::size_t value) { return static_cast<int>(std::min<std::size_t>(value, std::numeric_limits<int>::max())); }

const Corpus* splitNamed(const LoadedProject& project, const QString& name) {
    const std::string wanted = name.toStdString();
    for (const SplitCorpus& split : project.splits)
        if (split.split == wanted) return &split.corpus;
    return nullptr;
}

// Per-epoch bookkeeping: the mean loss of an epoch's steps, and the epoch ends of a run without
// dev split (no validation event closes them: the next epoch's first step or the end of the run
// does).
struct EpochTracker {
    int epoch = 0;
    double lossSum = 0;
    int losses = 0;
    int closed = -1;  ///< the last epoch reported by epochEnded

    double meanLoss() const { return losses ? lossSum / losses : std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace

void runTrainingJob(const std::shared_ptr<const LoadedProject>& project, const TrainingRequest& request,
                    const TrainingReport& report) {
    if (!project || !project->kb) throw Error("no project is open");
    const Corpus* train = splitNamed(*project, request.trainSplit);
    if (!train) throw Error("the project has no split \"" + request.trainSplit.toStdString() + "\" to train on");
    const Corpus* dev = nullptr;
    if (!request.devSplit.isEmpty()) {
        dev = splitNamed(*project, request.devSplit);
        if (!dev) throw Error("the project has no split \"" + request.devSplit.toStdString() + "\"");
    }
    if (request.runDirectory.isEmpty()) throw Error("no output folder was chosen for the run");
    const auto checkCancelled = [&report] {
        if (report.cancelled && report.cancelled()) throw Cancelled();
    };

    const fs::path models = toPath(request.modelsDirectory);
    const train::TrainingPreset preset = train::findPreset(request.preset.toStdString(), models);
    const std::string schedule = request.schedule.isEmpty() ? std::string("paper") : request.schedule.toStdString();
    (void)preset.schedule(schedule);  // a wrong name fails now, before the encoder is built

    const encoder::DevicePreference device = request.device == QLatin1String("cpu") ? encoder::DevicePreference::Cpu
                                             : request.device == QLatin1String("cuda")
                                                 ? encoder::DevicePreference::Cuda
                                                 : encoder::DevicePreference::Auto;
    // Learning a compact vocabulary from a large KB takes seconds: say so.
    TrainingUpdate preparing;
    preparing.stage = QStringLiteral("Preparing the encoder");
    report.progress(preparing);
    encoder::EncoderOptions encoderOptions;
    encoderOptions.device = device;
    encoderOptions.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    encoderOptions.pooling = preset.pooling;
    std::vector<std::string> markers;
    const auto [open, close] = train::markerTokens(preset.markers);
    for (const auto token : {open, close})
        if (!token.empty()) markers.emplace_back(token);
    // A pretrained encoder is fine-tuned by every method later: its vocabulary gets every
    // method's markers, as `linkscope-cli pretrain` gives them.
    if (!train::linksMentions(preset.method)) markers = {"[S]", "[E]", "[START]", "[END]"};

    // As `linkscope-cli train` does: the compact encoder learns its vocabulary from the KB and
    // the corpora; a checkpoint gets the method's marker tokens added.
    auto makeEncoder = [&]() -> encoder::TextEncoder {
        if (request.modelDirectory.isEmpty()) {
            encoder::CompactEncoderPreset compact =
                encoder::CompactEncoderPreset::load(models / "compact-encoder.json");
            compact.config.projectionDim = preset.projectionDim;
            compact.config.projectionHead = preset.projectionHead;
            compact.config.pooling = preset.pooling;
            std::vector<const Corpus*> corpora = {train};
            if (dev) corpora.push_back(dev);
            const std::vector<std::string> texts = encoder::vocabularyTexts(*project->kb, corpora);
            return encoder::createCompactEncoder(compact, texts, markers, encoderOptions);
        }
        encoder::TextEncoder loaded = encoder::TextEncoder::load(toPath(request.modelDirectory), encoderOptions);
        std::vector<std::string> missing;
        for (const auto& marker : markers)
            if (!loaded.tokenizer().tokenId(marker)) missing.push_back(marker);
        if (!missing.empty()) loaded.addTokens(missing, preset.seed);
        return loaded;
    };
    encoder::TextEncoder textEncoder = makeEncoder();
    checkCancelled();

    train::TrainingInputs inputs;
    inputs.kb = project->kb.get();
    inputs.train = train;
    inputs.dev = dev;
    inputs.queries.normalizer = eval::bioSynQueryNormalizer();
    // The masked-LM stage reads the titles and abstracts of the training and dev splits (their
    // text only: no gold id); it validates on documents it holds out of them.
    if (preset.method == train::Method::MaskedLm) {
        inputs.textCorpora.push_back(train);
        if (dev && dev != train) inputs.textCorpora.push_back(dev);
    }

    EpochTracker epochs;
    using Clock = std::chrono::steady_clock;
    Clock::time_point lastPost{};
    QString lastStage;
    QList<QPointF> pendingLosses;
    auto closeEpoch = [&epochs, &report](int epoch, double devAccuracy) {
        const double loss = epoch == epochs.epoch ? epochs.meanLoss() : std::numeric_limits<double>::quiet_NaN();
        epochs.closed = epoch;
        report.epochEnded(epoch, loss, devAccuracy);
    };

    train::TrainerOptions options;
    options.runDirectory = toPath(request.runDirectory);
    options.schedule = schedule;
    options.device = device;
    options.cancelled = [&report] { return report.cancelled && report.cancelled(); };
    options.progress = [&](const train::TrainingProgress& p) {
        const bool training = p.stage == "Training";
        if (training) {
            const int epoch = toInt(p.epoch);
            if (epoch != epochs.epoch) {
                // Without a dev split nothing else closes the previous epoch.
                if (!dev && epochs.epoch > 0 && epochs.closed != epochs.epoch) closeEpoch(epochs.epoch, -1.0);
                epochs = EpochTracker{epoch, 0.0, 0, epochs.closed};
            }
            epochs.lossSum += p.loss;
            ++epochs.losses;
            pendingLosses.append(QPointF(double(p.globalStep), p.loss));
        }
        // The untrained model's validation comes as epoch 0: the curve's starting point.
        if (p.devAccuracy) closeEpoch(toInt(p.epoch), *p.devAccuracy);
        if (p.devAccuracy && !p.warning.empty())
            report.collapseWarning(toInt(p.epoch), QString::fromStdString(p.warning));

        const QString stage = QString::fromStdString(p.stage);
        const auto now = Clock::now();
        const bool due = stage != lastStage || now - lastPost >= std::chrono::milliseconds(50) ||
                         (training && p.step == p.stepsPerEpoch);
        if (!due) return;
        lastStage = stage;
        lastPost = now;
        TrainingUpdate update;
        update.stage = stage;
        update.stageFraction = p.stageFraction;
        update.epoch = toInt(p.epoch);
        update.epochs = toInt(p.epochs);
        update.step = toInt(p.step);
        update.stepsPerEpoch = toInt(p.stepsPerEpoch);
        update.globalStep = toInt(p.globalStep);
        update.loss = p.loss;
        update.learningRate = p.learningRate;
        update.examplesPerSecond = p.examplesPerSecond;
        update.etaSeconds = p.etaSeconds;
        update.losses = std::exchange(pendingLosses, {});
        report.progress(update);
    };

    const train::TrainingResult result = train::trainModel(preset, std::move(textEncoder), inputs, options);
    if (result.cancelled) throw Cancelled();
    if (!dev && epochs.epoch > 0 && epochs.closed != epochs.epoch) closeEpoch(epochs.epoch, -1.0);
}

}  // namespace linkscope::ui
