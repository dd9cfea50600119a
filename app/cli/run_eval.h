#pragma once
// `linkscope-cli eval --run RUN_DIR` (or `--model RUN_DIR`): evaluates the model a training run
// kept (RUN/model) the way its method links -- the preset's inputs, similarity and candidate
// stages (train/method_linker.h), BioSyn's lambda as learned -- with the same protocol and
// outputs as the other linkers of `eval`. Needs LibTorch.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "augment_options.h"
#include "console_progress.h"
#include "curation/augmented_linker.h"
#include "dictionary_setup.h"
#include "encoder/text_encoder.h"
#include "encoder_options.h"
#include "retrieval/knn_datastore.h"
#include "train/method_linker.h"
#include "train/run_directory.h"
#include "train/training_preset.h"

namespace linkscope::cli {

struct RunEvalArguments {
    std::filesystem::path run;
    /// The data; homonym expansion is switched on when the preset trains on the expanded KB.
    DictionaryArguments data;
    /// Device, batch size and precision. Pooling, lengths and normalization are the preset's.
    EncoderArguments encoder;
    std::size_t k = 64;
    std::filesystem::path report;
    std::filesystem::path perMention;
    unsigned threads = 0;
    bool json = false;
    /// --knn / --sieve / --datastore: link with the datastore of the training mentions.
    AugmentArguments augment;
};

/// A training run ready to link: its preset (named by run.json), its best model loaded with the
/// preset's pooling and lengths, and the data read. Error when the folder is not a run
/// directory or holds no model yet.
struct LoadedRun {
    train::TrainingPreset preset;
    train::RunInfo info;
    std::filesystem::path modelDirectory;
    DictionaryArguments data;  ///< with homonym expansion on when the preset trains on it
    CorpusSetup setup;
    EvalData evalData;
    std::optional<encoder::TextEncoder> encoder;
};
/// How the KB and corpora are read: CorpusSetup::read for eval's splits; `link` reads its own.
using SetupReader = std::function<CorpusSetup(const DictionaryArguments&)>;
LoadedRun loadRun(const std::filesystem::path& run, const DictionaryArguments& data, const EncoderArguments& encoder,
                  const SetupReader& readSetup = CorpusSetup::read);

/// One line for reports: what ranks, and how (the method_linker.h table).
std::string runRankerDescription(const LoadedRun& run);

/// The kNN datastore of a run: loaded from `file` when it exists (Error when another model made
/// it), else built from the training mentions (as the method encodes mentions) and saved to
/// `file` when one is given. With a project file, the datastore is kept inside it instead, under
/// a name derived from the encoder's fingerprint (so each model finds its own), and the run is
/// registered in the project. The encoding of the mentions is reported to `progress`.
retrieval::KnnDatastore runDatastore(const LoadedRun& run, const train::MethodLinker& linker,
                                     const std::filesystem::path& file, const std::filesystem::path& project,
                                     ConsoleProgress& progress);

/// A run's linker as `eval --run` and `link --run` rank with it: the method's linker over the
/// run's dictionary, the kNN datastore when augment.active() (runDatastore), and the augmented
/// linker over both when `linking` is given. Made in place and never moved: the augmented linker
/// refers to the others, and all of them to the LoadedRun, which must outlive it.
struct RunLinker {
    train::MethodLinker method;
    std::optional<retrieval::KnnDatastore> datastore;
    std::optional<curation::AugmentedLinker> augmented;
    std::optional<curation::AugmentedOptions> linking;
    double seconds = 0.0;  ///< building the method's linker (names encoded, indexes built)

    RunLinker(const LoadedRun& run, unsigned threads, const ProgressSink* progress);
    /// The augmented linker's ranking when there is one, else the method's.
    eval::RankFn rankFunction() const;
};
std::unique_ptr<RunLinker> prepareRunLinker(const LoadedRun& run, const AugmentArguments& augment,
                                            std::optional<curation::AugmentedOptions> linking, unsigned threads,
                                            ConsoleProgress& progress);

/// Runs the evaluation and prints the table (or the JSON report with `json`); writes the report
/// and the per-mention predictions when their files are given. Error when the folder is not a
/// run directory or holds no model yet.
void runEvalOfRun(const RunEvalArguments& args);

}  // namespace linkscope::cli
