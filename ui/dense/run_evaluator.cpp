#include "run_evaluator.h"

#include <optional>

#include "curation/augmented_linker.h"
#include "curation/training_datastore.h"
#include "project/loaded_project.h"
#include "project_eval_data.h"
#include "retrieval/knn_datastore.h"
#include "train/method_inputs.h"
#include "train/method_linker.h"
#include "train/run_model.h"

namespace linkscope::ui {
namespace {

class ModelRunEvaluator final : public RunEvaluator {
public:
    explicit ModelRunEvaluator(train::RunModel model) : model_(std::move(model)) {}

    bool homonymExpansion() const override { return model_.preset.homonymExpansion; }

    eval::EvalResult evaluate(const LoadedProject& project, const ProjectEvalData& data, bool knn,
                              const eval::EvalOptions& options, const ProgressSink& progress) override {
        const train::TrainingPreset& preset = model_.preset;
        train::LinkerOptions linkerOptions;
        linkerOptions.sparseWeight = model_.info.sparseWeight;
        const train::MethodLinker linker(preset, model_.encoder, data.dictionary, project.kb.get(), linkerOptions,
                                         &progress);
        const auto counter = train::tokenCounterOf(model_.encoder.tokenizer());
        eval::EvalOptions evalOptions = options;
        evalOptions.partText = train::mentionInputs(preset, *data.evaluated, counter);
        std::optional<retrieval::KnnDatastore> datastore;
        std::optional<curation::AugmentedLinker> augmented;
        if (knn) {
            // kNN-BioEL's inference: the training mentions as keys, the paper's NCBI settings.
            if (data.train)
                datastore.emplace(curation::buildTrainingDatastore(linker, data.trainQueries.queries,
                                                                   train::mentionInputs(preset, *data.train, counter),
                                                                   model_.encoder.fingerprint(), &progress));
            else
                datastore.emplace(linker.dimension(), model_.encoder.fingerprint());
            curation::AugmentedOptions augmentedOptions;
            augmentedOptions.mode = curation::LinkMode::Knn;
            augmentedOptions.ontologyEntries = data.kbEntries;
            augmented.emplace(linker, data.dictionary, &*datastore, augmentedOptions);
        }
        return eval::evaluate(data.queries, data.dictionary,
                              augmented ? augmented->rankFunction() : linker.rankFunction(), evalOptions);
    }

private:
    train::RunModel model_;
};

}  // namespace

std::unique_ptr<RunEvaluator> loadModelRunEvaluator(const std::filesystem::path& run, bool cpuOnly) {
    encoder::EncoderOptions encoderOptions;
    if (cpuOnly) encoderOptions.device = encoder::DevicePreference::Cpu;
    return std::make_unique<ModelRunEvaluator>(train::loadRunModel(run, encoderOptions));
}

}  // namespace linkscope::ui
