// The training loop shared by the five methods (the method's part is an Objective).
//
// Determinism, so that a cancelled and resumed run ends exactly where an uninterrupted one does:
// an epoch's batches come from a generator seeded with (seed, epoch); every step seeds LibTorch's
// generator (dropout) and the objective's generator (SRN anchors) with (seed, global step); and a
// checkpoint keeps the model, the optimizer's moments, the learned scalars and what the last
// refresh computed (candidates are never recomputed with a later model on resume).
//
// Checkpoints and the best model are directories written beside their final name and swapped
// in by renames, so a crash at any moment leaves the previous complete one.
//
// The dictionary's names are encoded once per epoch, not twice: the validation after an epoch
// encodes them (MethodLinker) with the model that the next epoch's refresh starts from, and the
// objectives whose refresh encodes the same texts the same way take those vectors (bit for bit
// what encoding them again gives, so a resume that does re-encode them stays exact).
#include <ATen/autocast_mode.h>
#include <torch/serialize.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include "corpus/corpus.h"
#include "encoder/bert_model.h"
#include "eval/dictionary.h"
#include "eval/report.h"
#include "kb/knowledge_base.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "train/collapse_check.h"
#include "train/kb_holdout.h"
#include "train/loop_state.h"
#include "train/method_linker.h"
#include "train/objective.h"
#include "train/run_files.h"
#include "train/run_recovery.h"
#include "train/trainer.h"
#include "train/training_data.h"
#include "train/validation_summary.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_file.h"

namespace linkscope::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t salt) noexcept {
    // SplitMix64 of seed ^ salt: nearby salts give unrelated streams.
    std::uint64_t z = seed ^ (salt + 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Replaces directory `target` by `staged` with renames (the old one is removed last).
void swapDirectory(const fs::path& staged, const fs::path& target) {
    const fs::path old = fs::path(target).concat(".old");
    fs::remove_all(old);
    if (fs::exists(target)) fs::rename(target, old);
    fs::rename(staged, target);
    fs::remove_all(old);
}

// bf16 autocast on CUDA for the forward pass and the loss (no loss scaling needed, unlike fp16).
class AutocastGuard {
public:
    explicit AutocastGuard(bool enabled) : enabled_(enabled) {
        if (!enabled_) return;
            // LibTorch 2.4 names the device in the autocast calls and deprecates the CUDA-only ones
            // that Debian's 1.13 has; the GPU machines build against a current LibTorch.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
        at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
        at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
        at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
        at::autocast::set_enabled(true);
#endif
    }
    ~AutocastGuard() {
        if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
        at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
        at::autocast::set_enabled(false);
#endif
        at::autocast::clear_cache();
    }
    AutocastGuard(const AutocastGuard&) = delete;
    AutocastGuard& operator=(const AutocastGuard&) = delete;

private:
    bool enabled_;
};

class Trainer {
public:
    Trainer(const TrainingPreset& preset, encoder::TextEncoder encoder, const TrainingInputs& inputs,
            const TrainerOptions& options)
        : preset_(preset.scheduled(options.schedule)),
          schedule_(preset_.training),
          effective_(preset_),
          encoder_(std::move(encoder)),
          inputs_(inputs),
          options_(options),
          run_(options.runDirectory) {
        if (!inputs.kb) throw Error("training: a KB is needed");
        if (!inputs.train && linksMentions(preset.method)) throw Error("training: a training corpus is needed");
        if (preset.method == Method::MaskedLm && !inputs.train && inputs.textCorpora.empty())
            throw Error("training: the masked-LM stage needs corpora to read");
    }

    TrainingResult run() {
        prepareDirectory();
        try {
            return train();
        } catch (const Cancelled&) {
            // Cancelled while encoding or validating: the last checkpoint stands.
            info_.status = "cancelled";
            writeRunInfo(run_, info_);
            return {info_, true};
        } catch (const std::exception& e) {
            info_.status = "failed";
            info_.error = e.what();
            writeRunInfo(run_, info_);
            throw;
        }
    }

private:
    void prepareDirectory() {
        if (options_.resume) {
            // A kill inside a swap leaves a complete copy beside checkpoint/ (run_recovery.h);
            // the commands have taken it back already, a caller of trainModel may not have.
            recoverInterruptedSwaps(run_);
            if (!fs::exists(checkpointDirectory(run_) / "state.json"))
                throw Error(run_.string() + ": no checkpoint to resume from (" + checkpointDirectory(run_).string() +
                            ")");
            const auto saved = TrainingPreset::load(presetFile(run_));
            auto expected = effective_;
            expected.name = saved.name;
            if (!(saved == expected))
                throw Error(presetFile(run_).string() +
                            ": the run was started with other settings; resume it with its own preset");
            // The run as its checkpoint was written (checkpoint/run.json): RUN/run.json is written
            // after the checkpoint's swap, so a kill between the two leaves it behind the
            // checkpoint (epochs done, the best epoch). Checkpoints of older versions hold none.
            const fs::path snapshot = checkpointDirectory(run_);
            info_ = fs::exists(runInfoFile(snapshot)) ? readRunInfo(snapshot) : readRunInfo(run_);
            // A run.json of an older version lacks the name: the preset's (as the caller loaded it).
            if (info_.preset.empty()) info_.preset = preset_.name;
        } else {
            refuseLinksInRun(run_);  // run_files.h: a run writes in place, never through a link
            if (isRunDirectory(run_))
                throw Error(run_.string() + ": already holds a run; resume it (--resume) or choose another folder");
            fs::create_directories(run_);
            AtomicFileWriter writer(presetFile(run_));
            writer.stream() << effective_.toJson();
            writer.commit();
            info_.schedule = options_.schedule.empty() ? "paper" : options_.schedule;
            info_.scheduleReason = options_.scheduleReason;
            // preset.json alone would be read back as a preset named "preset".
            info_.preset = preset_.name;
            fs::remove(logFile(run_));
        }
    }

    void setUpModel() {
        auto encoderOptions = encoder_.options();
        encoderOptions.device = options_.device;
        encoderOptions.precision = encoder::Precision::Fp32;  // weights stay fp32; autocast does the rest
        encoderOptions.maxLength = std::max(preset_.maxLength, preset_.entityMaxLength);
        encoderOptions.pooling = preset_.pooling;
        encoder_.setOptions(encoderOptions);
        // A pretrained encoder (pretrain's, or a downloaded one) has no head: the method's is added,
        // initialised from the seed. A head of another size or form is a model of another method.
        if (preset_.projectionDim != 0 && encoder_.config().projectionDim == 0)
            encoder_.addProjectionHead(preset_.projectionDim, preset_.projectionHead, preset_.seed);
        auto& model = encoder_.model();
        if (preset_.projectionDim != model.config().projectionDim ||
            (preset_.projectionDim != 0 && preset_.projectionHead != model.config().projectionHead))
            throw Error("training: preset \"" + preset_.name + "\" wants a " +
                        std::string(encoder::projectionHeadName(preset_.projectionHead)) + " projection head of " +
                        std::to_string(preset_.projectionDim) + " dimensions but the model has " +
                        (model.config().projectionDim == 0
                             ? std::string("none")
                             : std::string(encoder::projectionHeadName(model.config().projectionHead)) + " of " +
                                   std::to_string(model.config().projectionDim)) +
                        " (start from an encoder without a head, or from a model of this preset)");
        model.setPooling(preset_.pooling);  // saved in config.json: `eval --model RUN/model` pools the same way
        model.setMentionAlone(preset_.mentionAlone, preset_.mentionContextWeight);
        model.markWeightsChanged();
        device_ = model.parameters().front().device();
        info_.device = encoder_.deviceName();
        autocast_ = device_.is_cuda() && options_.mixedPrecision;
    }

    void setUpOptimizer() {
        std::vector<torch::optim::OptimizerParamGroup> groups;
        scalars_ = objective_->scalars();
        const bool adamw = schedule_.optimizer == "adamw";
        const auto options = [&](double lr, double decay) -> std::unique_ptr<torch::optim::OptimizerOptions> {
            if (adamw)
                return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(lr).weight_decay(decay));
            return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(lr).weight_decay(decay));
        };
        groups.emplace_back(encoder_.model().parameters(), options(schedule_.learningRate, schedule_.weightDecay));
        // The objective's own weights (the masked-LM head) learn as the encoder does.
        if (auto own = objective_->parameters(); !own.empty())
            groups.emplace_back(std::move(own), options(schedule_.learningRate, schedule_.weightDecay));
        // The scalars stay where the objective keeps them (CPU leaves; the loss moves a copy to
        // the device, and gradients flow back to the leaf).
        for (auto& scalar : scalars_) {
            groups.emplace_back(std::vector<torch::Tensor>{scalar.value},
                                options(scalar.learningRate.value_or(schedule_.learningRate), 0.0));
        }
        if (adamw)
            optimizer_ = std::make_unique<torch::optim::AdamW>(std::move(groups),
                                                               torch::optim::AdamWOptions(schedule_.learningRate));
        else
            optimizer_ = std::make_unique<torch::optim::Adam>(std::move(groups),
                                                              torch::optim::AdamOptions(schedule_.learningRate));
    }

    // The objective's scalars, after a resume, are the saved values (the tensors the optimizer
    // holds are updated in place).
    void restoreScalars(const LoopState& state) {
        torch::NoGradGuard noGrad;
        for (auto& scalar : scalars_)
            if (const auto it = state.scalars.find(scalar.name); it != state.scalars.end())
                scalar.value.fill_(it->second);
    }

    std::map<std::string, double> scalarValues() const {
        std::map<std::string, double> values;
        for (const auto& scalar : scalars_) values[scalar.name] = scalar.value.item<double>();
        return values;
    }

    void noteScalars(RunInfo& info) const {
        const auto values = scalarValues();
        if (const auto it = values.find("sparse_weight"); it != values.end()) info.sparseWeight = it->second;
        if (const auto it = values.find("radius"); it != values.end()) info.radius = it->second;
    }

    TrainingResult train() {
        setUpModel();
        if (options_.resume) {
            // The checkpoint's model replaces the one given before anything reads its tokenizer:
            // the name inputs are fitted with it, as the validation's linker fits them.
            auto restored = encoder::TextEncoder::load(checkpointDirectory(run_) / "model", encoder_.options());
            encoder_ = std::move(restored);
            setUpModel();
        }
        // The masked-LM stage reads documents only: it needs no dictionary of names (73,904 of
        // MEDIC's, each tokenized) and no dev queries, which its own validation does not read.
        // Without a dev corpus the KB holds validation data out (kb_holdout.h); a run begun by
        // an older version, which recorded no validation, resumes as it began.
        const bool holdOut = !inputs_.dev && (!options_.resume || info_.validation.has_value());
        if (!ownValidation()) {
            data_ = buildTrainingData(preset_, schedule_, *inputs_.kb, inputs_.train, inputs_.dev, inputs_.queries,
                                      tokenCounter(), holdOut);
            startValidationSummary();
        }
        objective_ = preset_.method == Method::MaskedLm
                         ? makeMaskedLmObjective(preset_, documentTexts(), encoder_.model(), encoder_.tokenizer())
                         : makeObjective(preset_, data_, *inputs_.kb, inputs_.pretrainingKbs);
        setUpOptimizer();  // over the parameters of the model that trains (the checkpoint's on resume)
        // The scalars of the starting model; a resumed run's run.json holds those of its best
        // model, which the scalars' starting values must not overwrite (eval --run reads them).
        if (!options_.resume) {
            if (!preset_.biosyn.trainSparseWeight) info_.sparseWeight = preset_.biosyn.sparseWeight;
            noteScalars(info_);
        }

        LoopState state;
        if (options_.resume) {
            const fs::path checkpoint = checkpointDirectory(run_);
            state = loopStateFrom(checkpoint / "state.json");
            // Its counts index this run's epochs and batches: past them, it is another run's.
            if (state.epoch > schedule_.epochs || state.step > state.globalStep)
                throw ParseError((checkpoint / "state.json").string(), 0,
                                 "epoch " + std::to_string(state.epoch) + ", step " + std::to_string(state.step) +
                                     " of " + std::to_string(state.globalStep) + " do not fit the run's " +
                                     std::to_string(schedule_.epochs) + " epochs: not this run's checkpoint");
            const fs::path optimizerFile = checkpoint / "optimizer.pt";
            try {
                InputFileStream in(optimizerFile, "the optimizer state");  // a FIFO or device: refused
                torch::load(*optimizer_, in);
            } catch (const c10::Error& e) {
                // LibTorch's message carries a C++ backtrace; its first line says what is wrong.
                const std::string what = e.what_without_backtrace();
                throw Error(optimizerFile.string() +
                            ": damaged optimizer state, the run cannot resume: " + what.substr(0, what.find('\n')));
            } catch (const std::exception& e) {
                throw Error(optimizerFile.string() + ": damaged optimizer state, the run cannot resume: " + e.what());
            }
            restoreScalars(state);
            restoreObjectiveParameters(checkpoint);
            // A validation after the checkpoint runs again and counts again.
            info_.collapsedValidations = state.collapsedValidations;
            // Mid-epoch, the epoch's candidates are the checkpoint's; at an epoch boundary the
            // refresh that starts the epoch recomputes them, as in an uninterrupted run.
            resumedMidEpoch_ = state.step > 0;
            if (resumedMidEpoch_) objective_->loadState(checkpoint, encoder_.dimension());
            // The log is cut back to what it held at the checkpoint; state.json cannot make it
            // longer (a damaged or hostile log_bytes of 1 TB made a sparse file of that size).
            // Measured and cut through O_NOFOLLOW (run_files.h): a log that is a link is refused.
            if (fs::exists(fs::symlink_status(logFile(run_)))) {
                const auto logged = runFileSize(logFile(run_));
                if (state.logBytes > logged)
                    throw ParseError((checkpoint / "state.json").string(), 0,
                                     "\"log_bytes\" is " + std::to_string(state.logBytes) + " but " +
                                         logFile(run_).string() + " holds " + std::to_string(logged) +
                                         " bytes: the log is not the one this checkpoint was written with");
                truncateRunFile(logFile(run_), state.logBytes);
            }
        } else {
            // A first checkpoint, so that a run cancelled before its first epoch ends resumes.
            writeCheckpoint(state);
        }
        // The sparse linker on the same validation queries, once per run: the bar the kept model is held to.
        if (validates() && info_.validation && info_.validation->sparseAcc1 < 0) measureSparse(state);
        // The untrained model's validation (again, when a run cancelled before it is resumed).
        const bool atStart = state.epoch == 0 && state.step == 0 && state.globalStep == 0;
        if (atStart && validates() && info_.untrainedDevAccuracy < 0) {
            report("Validating the untrained model", 0.0, state);
            eval::EvalResult result;
            info_.untrainedDevAccuracy = validate(&result);
            nlohmann::json line = {{"event", "validation"}, {"epoch", 0}, {"dev_acc1", info_.untrainedDevAccuracy}};
            noteValidation(line);
            log(line);
            // The starting model competes too: a run whose epochs all do worse keeps it (best epoch 0).
            info_.bestDevAccuracy = info_.untrainedDevAccuracy;
            info_.bestEpoch = 0;
            info_.collapse = lastCheck_.warning();
            saveBest(ownValidation() ? nullptr : &result);
            if (options_.progress) {
                TrainingProgress progress = progressAt(state, 0, 0.0);
                progress.epoch = 0;
                progress.stage = "Validated";
                progress.stageFraction = 1.0;
                progress.devAccuracy = info_.untrainedDevAccuracy;
                progress.warning = lastCheck_.warning();
                options_.progress(progress);
            }
            writeCheckpoint(state);  // with the validation in the log
        }
        info_.status = "running";
        writeRunInfo(run_, info_);

        if (!state.validated) finishEpoch(state);
        const Clock::time_point started = Clock::now();
        const double secondsBefore = info_.seconds;
        for (; state.epoch < schedule_.epochs;) {
            if (stopEarly(state)) break;
            std::mt19937_64 epochRng(mixSeed(preset_.seed, state.epoch));
            const auto batches = objective_->batches(epochRng, schedule_.batchSize);
            const std::size_t accumulation = schedule_.gradientAccumulation;
            const std::size_t steps = (batches.size() + accumulation - 1) / accumulation;
            if (resumedMidEpoch_ && state.step >= steps)
                throw ParseError((checkpointDirectory(run_) / "state.json").string(), 0,
                                 "step " + std::to_string(state.step) + " of an epoch of " + std::to_string(steps) +
                                     " steps: not this run's checkpoint");
            // A run resumed mid-epoch keeps the candidates its checkpoint holds.
            if (!resumedMidEpoch_) refresh(state, steps);
            resumedMidEpoch_ = false;

            encoder_.model().train();
            const Clock::time_point epochStarted = Clock::now();
            std::size_t examples = 0;
            std::size_t epochSteps = 0;  // in this process (a resumed epoch has done some before)
            for (; state.step < steps; ++state.step) {
                if (options_.cancelled && options_.cancelled()) return cancel(state, started, secondsBefore);
                if (schedule_.kbRefreshSteps != 0 && state.step != 0 &&
                    state.globalStep % schedule_.kbRefreshSteps == 0)
                    refresh(state, steps);
                const double loss = optimizerStep(batches, state, examples);
                state.epochLoss += loss;
                ++epochSteps;
                ++state.globalStep;
                const double elapsed = std::chrono::duration<double>(Clock::now() - epochStarted).count();
                TrainingProgress progress = progressAt(state, steps, loss);
                progress.stage = "Training";
                progress.stageFraction = double(state.step + 1) / double(steps);
                progress.examplesPerSecond = elapsed > 0 ? double(examples) / elapsed : 0.0;
                const double perStep = elapsed / double(epochSteps);
                const double stepsLeft =
                    double(steps - state.step - 1) + double(steps) * double(schedule_.epochs - state.epoch - 1);
                progress.etaSeconds = perStep * stepsLeft;
                ++progress.step;
                if (options_.progress) options_.progress(progress);
                if (options_.logSteps != 0 && state.globalStep % options_.logSteps == 0)
                    log({{"event", "step"},
                         {"epoch", state.epoch + 1},
                         {"step", state.step + 1},
                         {"global_step", state.globalStep},
                         {"loss", loss},
                         {"learning_rate", schedule_.learningRate},
                         {"examples_per_second", progress.examplesPerSecond}});
                if (options_.checkpointSteps != 0 && state.globalStep % options_.checkpointSteps == 0 &&
                    state.step + 1 < steps) {
                    LoopState next = state;
                    ++next.step;
                    writeCheckpoint(next);
                }
            }
            encoder_.model().eval();
            encoder_.model().markWeightsChanged();
            info_.seconds = secondsBefore + std::chrono::duration<double>(Clock::now() - started).count();
            log({{"event", "epoch_end"},
                 {"epoch", state.epoch + 1},
                 {"train_loss", steps ? state.epochLoss / double(steps) : 0.0},
                 {"steps", steps},
                 {"seconds", std::chrono::duration<double>(Clock::now() - epochStarted).count()}});
            ++state.epoch;
            state.step = 0;
            state.epochLoss = 0.0;
            state.validated = false;
            writeCheckpoint(state);  // before validating: a cancellation there keeps the epoch
            finishEpoch(state);
        }
        info_.seconds = secondsBefore + std::chrono::duration<double>(Clock::now() - started).count();
        if (!validates()) saveBest(nullptr);
        updateVerdict();
        info_.status = "finished";
        writeRunInfo(run_, info_);
        return {info_, false};
    }

    // Validation of the epoch that just ended; the best model is kept.
    void finishEpoch(LoopState& state) {
        info_.epochsDone = state.epoch;
        if (validates()) {
            TrainingProgress progress = progressAt(state, 0, 0.0);
            progress.epoch = state.epoch;
            eval::EvalResult result;
            report("Validating", 0.0, state);
            const double accuracy = validate(&result);
            noteEpochAccuracy(state.epoch, accuracy);
            const bool better = accuracy > info_.bestDevAccuracy;
            if (better) {
                info_.bestDevAccuracy = accuracy;
                info_.bestEpoch = state.epoch;
                info_.collapse = lastCheck_.warning();
                noteScalars(info_);
                saveBest(ownValidation() ? nullptr : &result);
                state.epochsWithoutImprovement = 0;
            } else {
                ++state.epochsWithoutImprovement;
            }
            nlohmann::json line = {{"event", "epoch"},
                                   {"epoch", state.epoch},
                                   {"dev_acc1", accuracy},
                                   {"best", better},
                                   {"scalars", scalarValues()}};
            if (!ownValidation()) line["dev_acc5"] = result.all.accuracy(5);
            noteValidation(line);
            log(line);
            progress.stage = "Validated";
            progress.stageFraction = 1.0;
            progress.devAccuracy = accuracy;
            progress.warning = lastCheck_.warning();
            if (options_.progress) options_.progress(progress);
        } else {
            log({{"event", "epoch"}, {"epoch", state.epoch}, {"scalars", scalarValues()}});
        }
        state.validated = true;
        updateVerdict();
        writeCheckpoint(state);
        writeRunInfo(run_, info_);
    }

    // run.json's "validation": where the queries come from (dev, a KB holdout, none), checked
    // on resume against what the run began with, and the holdout's counts in the log.
    void startValidationSummary() {
        const std::string source = inputs_.dev              ? kValidationFromDev
                                   : !data_.holdout.empty() ? kValidationFromKbHoldout
                                                            : kValidationNone;
        if (options_.resume) {
            if (!info_.validation) return;  // begun by an older version
            if (info_.validation->source != source)
                throw Error(
                    run_.string() + ": the run was validated on " + info_.validation->source +
                    " data and would now be on " + source + "; resume it with the same data (" +
                    (info_.validation->source == kValidationFromDev ? "give the dev set again" : "without a dev set") +
                    ")");
            return;
        }
        ValidationSummary summary;
        summary.source = source;
        summary.queries = data_.devQueries.queries.size();
        if (source != kValidationFromDev) {
            summary.holdoutShare = kKbHoldoutShare;
            summary.eligibleConcepts = data_.holdout.eligibleConcepts;
            log({{"event", "kb_holdout"},
                 {"concepts", data_.holdout.conceptIds.size()},
                 {"eligible_concepts", data_.holdout.eligibleConcepts},
                 {"share", kKbHoldoutShare},
                 {"training_parts_held_out", data_.trainPartsHeldOut}});
        }
        info_.validation = std::move(summary);
        updateVerdict();
    }

    // The validation after epoch `epoch` (1-based) in run.json's list; a validation run again
    // after a resume replaces its earlier result.
    void noteEpochAccuracy(std::size_t epoch, double accuracy) {
        if (!info_.validation || ownValidation() || epoch == 0) return;
        auto& accuracies = info_.validation->epochAcc1;
        accuracies.resize(std::min(accuracies.size(), epoch - 1));
        accuracies.push_back(accuracy);
    }

    void updateVerdict() {
        if (!info_.validation) return;
        info_.validation->keptAcc1 = info_.bestDevAccuracy;
        info_.validation->warnings = validationWarnings(*info_.validation, info_.untrainedDevAccuracy);
    }

    // Acc@1 of the sparse linker (BioSyn's TF-IDF, as `eval --method sparse` links) on the
    // validation queries, against the KB's plain names (without the holdout's query names).
    void measureSparse(const LoopState& state) {
        report("Validating the sparse linker", 0.0, state);
        retrieval::NameDictionary plain;
        if (preset_.homonymExpansion) {
            eval::EvalDictionaryBuilder builder;
            builder.addKnowledgeBase(*inputs_.kb);
            plain = withoutQueryNames(builder.build().entries, data_.holdout);
        }
        const retrieval::NameDictionary& dictionary = preset_.homonymExpansion ? plain : data_.dictionary;
        const auto index = retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::bioSyn());
        eval::EvalOptions evalOptions;
        evalOptions.k = 1;
        evalOptions.progress.cancelled = options_.cancelled;
        const eval::RankFn rank = [&index](std::span<const std::string> queries, std::size_t k) {
            return index.search(queries, k);
        };
        info_.validation->sparseAcc1 = eval::evaluate(data_.devQueries, dictionary, rank, evalOptions).all.accuracy(1);
    }

    bool stopEarly(const LoopState& state) const {
        return schedule_.earlyStoppingPatience != 0 && validates() &&
               state.epochsWithoutImprovement >= schedule_.earlyStoppingPatience;
    }

    double optimizerStep(const std::vector<std::vector<std::size_t>>& batches, const LoopState& state,
                         std::size_t& examples) {
        const std::size_t accumulation = schedule_.gradientAccumulation;
        const std::size_t first = state.step * accumulation;
        const std::size_t last = std::min(batches.size(), first + accumulation);
        validationNames_ = {};  // stale from here on: the model changes (the epoch's refresh took them)
        optimizer_->zero_grad();
        GradientEncoder gradientEncoder(encoder_.model(), encoder_.tokenizer(), device_);
        double total = 0.0;
        for (std::size_t b = first; b < last; ++b) {
            const std::uint64_t stepSeed = mixSeed(preset_.seed, 0x5EED0000ULL + state.globalStep * 64 + (b - first));
            torch::manual_seed(stepSeed);
            std::mt19937_64 rng(stepSeed);
            torch::Tensor loss;
            {
                AutocastGuard autocast(autocast_);
                loss = objective_->loss(batches[b], gradientEncoder, rng);
            }
            (loss.to(torch::kFloat) / double(last - first)).backward();
            total += loss.item<double>();
            examples += objective_->examples(batches[b]);
        }
        optimizer_->step();
        return total / double(last - first);
    }

    void refresh(const LoopState& state, std::size_t steps) {
        ProgressSink sink;
        sink.report = [&](std::string_view, double fraction) { report("Encoding the KB", fraction, state, steps); };
        sink.cancelled = options_.cancelled;
        // The validation's name vectors, when it ran since the last step, spare encoding the names again.
        objective_->refresh(encoder_, sink, std::exchange(validationNames_, {}));
    }

    double validate(eval::EvalResult* out) {
        ProgressSink sink;
        sink.cancelled = options_.cancelled;
        if (ownValidation()) {
            // Held-out data of the objective's own (the masked-LM stage): no mention is linked,
            // so there is no collapse to check either.
            lastCheck_ = {};
            return objective_->validateHeldOut(encoder_.model(), device_, sink).value_or(0.0);
        }
        LinkerOptions linkerOptions;
        linkerOptions.sparseWeight = currentSparseWeight();
        const MethodLinker linker(preset_, encoder_, data_.dictionary, inputs_.kb, linkerOptions, &sink);
        eval::EvalOptions evalOptions;
        evalOptions.k = 5;
        evalOptions.progress = sink;
        evalOptions.partText = inputs_.dev ? mentionInputs(preset_, *inputs_.dev, tokenCounter()) : heldOutNameInputs();
        auto result = eval::evaluate(data_.devQueries, data_.dictionary, linker.rankFunction(), evalOptions);
        lastCheck_ = collapseCheck(linker, result, evalOptions);
        // The names the linker encoded are what the next refresh encodes, with this same model
        // (no step comes between a validation and the refresh that starts the next epoch).
        if (objective_->encodesLinkerNames()) {
            const auto names = linker.entryVectors();
            validationNames_.assign(names.begin(), names.end());
        }
        const double accuracy = result.all.accuracy(1);
        if (out) *out = std::move(result);
        return accuracy;
    }

    // The collapse check of a validation: its answers at rank 1 and the mention vectors of (at
    // most kCollapseSample of) its query parts, as the method encodes them.
    CollapseCheck collapseCheck(const MethodLinker& linker, const eval::EvalResult& result,
                                const eval::EvalOptions& evalOptions) const {
        constexpr std::size_t kCollapseSample = 2000;
        std::vector<std::string> inputs;
        for (const auto& query : data_.devQueries.queries) {
            for (std::size_t part = 0; part < query.parts.size() && inputs.size() < kCollapseSample; ++part)
                inputs.push_back(evalOptions.partText ? evalOptions.partText(query, part) : query.parts[part]);
            if (inputs.size() >= kCollapseSample) break;
        }
        const auto vectors = linker.encodeMentions(inputs);
        return checkCollapse(result, data_.devQueries.queries, data_.dictionary, vectors, linker.dimension());
    }

    // Whether a validation runs after each epoch: on dev mentions, or on the objective's own
    // held-out data (the masked-LM stage, whose dev mentions are not read).
    bool ownValidation() const { return validatesOwnData(preset_.method); }
    bool validates() const {
        return ownValidation() ? objective_->holdsOut() : inputs_.dev != nullptr || !data_.holdout.empty();
    }

    // A held-out KB name read as a mention: alone, or between the method's markers (no sentence).
    std::function<std::string(const eval::EvalQuery&, std::size_t)> heldOutNameInputs() const {
        return [markers = preset_.markers](const eval::EvalQuery& query, std::size_t part) {
            return nameInput(query.parts.at(part), markers);
        };
    }

    // The last validation into its log line: what it measured, and the collapse check's figures.
    void noteValidation(nlohmann::json& line) {
        if (ownValidation()) {
            line["metric"] = "held-out masked-token accuracy";
            return;
        }
        noteCollapse(line);
    }

    // The titles and abstracts the masked-LM stage reads: its text corpora, else the training split.
    std::vector<std::string> documentTexts() const {
        std::vector<const Corpus*> corpora = inputs_.textCorpora;
        if (corpora.empty() && inputs_.train) corpora.push_back(inputs_.train);
        std::vector<std::string> texts;
        for (const Corpus* corpus : corpora)
            for (const Document& document : corpus->documents()) texts.push_back(document.text());
        return texts;
    }

    // The objective's own weights as the checkpoint holds them (objective.pt), in place: the
    // optimizer holds these same tensors.
    void restoreObjectiveParameters(const fs::path& checkpoint) {
        auto own = objective_->parameters();
        if (own.empty()) return;
        const fs::path file = checkpoint / "objective.pt";
        std::vector<torch::Tensor> saved;
        try {
            InputFileStream in(file, "the objective's weights");  // a FIFO or device: refused
            torch::load(saved, in);
        } catch (const c10::Error& e) {
            const std::string what = e.what_without_backtrace();
            throw Error(file.string() +
                        ": damaged objective weights, the run cannot resume: " + what.substr(0, what.find('\n')));
        }
        if (saved.size() != own.size())
            throw Error(file.string() + ": holds " + std::to_string(saved.size()) + " tensors, the objective has " +
                        std::to_string(own.size()) + ": not this run's checkpoint");
        torch::NoGradGuard noGrad;
        for (std::size_t i = 0; i < own.size(); ++i) {
            if (saved[i].sizes() != own[i].sizes())
                throw Error(file.string() + ": tensor " + std::to_string(i) +
                            " has another shape than the objective's");
            own[i].copy_(saved[i]);
        }
    }

    // The last validation's check into its log line and run.json's count.
    void noteCollapse(nlohmann::json& line) {
        line["distinct_top1"] = lastCheck_.distinctTop1;
        line["gold_entities"] = lastCheck_.goldEntities;
        line["mean_cosine"] =
            std::isfinite(lastCheck_.meanCosine) ? nlohmann::json(lastCheck_.meanCosine) : nlohmann::json();
        line["collapsed"] = lastCheck_.collapsed();
        if (lastCheck_.collapsed()) ++info_.collapsedValidations;
    }

    TokenCounter tokenCounter() const {
        return tokenCounterOf(encoder_.tokenizer());  // taken at each use: a resume replaces the encoder
    }

    double currentSparseWeight() const {
        const auto values = scalarValues();
        if (const auto it = values.find("sparse_weight"); it != values.end()) return it->second;
        return preset_.biosyn.sparseWeight;
    }

    void saveBest(const eval::EvalResult* result) {
        const fs::path staged = fs::path(modelDirectory(run_)).concat(".new");
        fs::remove_all(staged);
        encoder_.save(staged);
        swapDirectory(staged, modelDirectory(run_));
        if (result) {
            eval::ReportOptions reportOptions;
            reportOptions.extra["preset"] = info_.preset;  // the run's name, also when resumed from preset.json
            reportOptions.extra["epoch"] = std::to_string(info_.bestEpoch);
            refuseLink(devReportFile(run_));  // the report writer would write through a link
            eval::writeJsonReport(devReportFile(run_), *result, reportOptions);
        }
    }

    void writeCheckpoint(LoopState state) {
        const fs::path staged = fs::path(checkpointDirectory(run_)).concat(".new");
        fs::remove_all(staged);
        fs::create_directories(staged);
        encoder_.save(staged / "model");
        torch::save(*optimizer_, (staged / "optimizer.pt").string());
        objective_->saveState(staged);
        if (const auto own = objective_->parameters(); !own.empty()) {
            std::vector<torch::Tensor> onCpu;
            for (const auto& parameter : own) onCpu.push_back(parameter.detach().to(torch::kCPU));
            torch::save(onCpu, (staged / "objective.pt").string());
        }
        state.scalars = scalarValues();
        state.collapsedValidations = info_.collapsedValidations;
        state.logBytes = runFileSize(logFile(run_));
        writeRunInfo(staged, info_);  // what a resume from this checkpoint takes run.json to be
        {
            AtomicFileWriter writer(staged / "state.json");
            writer.stream() << toJson(state).dump(2) << '\n';
            writer.commit();
        }
        swapDirectory(staged, checkpointDirectory(run_));
        writeRunInfo(run_, info_);
    }

    TrainingResult cancel(LoopState& state, Clock::time_point started, double secondsBefore) {
        info_.seconds = secondsBefore + std::chrono::duration<double>(Clock::now() - started).count();
        writeCheckpoint(state);
        log({{"event", "cancelled"},
             {"epoch", state.epoch + 1},
             {"step", state.step},
             {"global_step", state.globalStep}});
        info_.status = "cancelled";
        writeRunInfo(run_, info_);
        return {info_, true};
    }

    TrainingProgress progressAt(const LoopState& state, std::size_t steps, double loss) const {
        TrainingProgress progress;
        progress.epoch = std::min(state.epoch + 1, schedule_.epochs);
        progress.epochs = schedule_.epochs;
        progress.step = state.step;
        progress.stepsPerEpoch = steps;
        progress.globalStep = state.globalStep;
        progress.loss = loss;
        progress.learningRate = schedule_.learningRate;
        if (ownValidation())
            progress.validationMetric = "held-out masked-token accuracy";
        else if (!inputs_.dev && !data_.holdout.empty())
            progress.validationMetric = validationMetricName(kValidationFromKbHoldout);
        return progress;
    }

    void report(std::string_view stage, double fraction, const LoopState& state, std::size_t steps = 0) const {
        if (!options_.progress) return;
        TrainingProgress progress = progressAt(state, steps, 0.0);
        progress.stage = std::string(stage);
        progress.stageFraction = fraction;
        options_.progress(progress);
    }

    void log(const nlohmann::json& line) { appendToRunFile(logFile(run_), line.dump() + '\n'); }

    /// The preset as it runs: the schedule applied (its context window too), so that preset.json
    /// alone says what was done and the objectives read the window the schedule asks for.
    const TrainingPreset preset_;
    const Schedule& schedule_;
    TrainingPreset effective_;
    encoder::TextEncoder encoder_;
    const TrainingInputs& inputs_;
    const TrainerOptions& options_;
    fs::path run_;
    RunInfo info_;
    TrainingData data_;
    std::unique_ptr<Objective> objective_;
    std::vector<LearnedScalar> scalars_;
    std::unique_ptr<torch::optim::Optimizer> optimizer_;
    torch::Device device_{torch::kCPU};
    bool autocast_ = false;
    bool resumedMidEpoch_ = false;
    CollapseCheck lastCheck_;  ///< of the last validation
    /// The dictionary's name vectors of the last validation, for the refresh that follows it
    /// (empty when the objective encodes no names, or once the model has taken a step).
    std::vector<float> validationNames_;
};

}  // namespace

TrainingResult trainModel(const TrainingPreset& preset, encoder::TextEncoder encoder, const TrainingInputs& inputs,
                          const TrainerOptions& options) {
    Trainer trainer(preset, std::move(encoder), inputs, options);
    return trainer.run();
}

}  // namespace linkscope::train
