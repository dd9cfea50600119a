#include "run_eval.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "curation/training_datastore.h"
#include "encoder/text_encoder.h"
#include "eval/evaluate.h"
#include "eval/report.h"
#include "project/datastore_storage.h"
#include "project/project_store.h"
#include "train/method_linker.h"
#include "train/run_directory.h"
#include "train/run_model.h"
#include "train/training_preset.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string numberText(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

}  // namespace

std::string runRankerDescription(const LoadedRun& run) {
    const train::TrainingPreset& preset = run.preset;
    const train::RunInfo& info = run.info;
    const encoder::TextEncoder& encoder = *run.encoder;
    std::string text = std::string(train::methodName(preset.method)) + ": " +
                       std::string(train::similarityName(preset.similarity)) + " over " +
                       std::string(encoder::poolingName(encoder.pooling())) + "-pooled vectors (" +
                       encoder.deviceName() + ")";
    if (preset.method == train::Method::BioSyn) text += " + " + numberText(info.sparseWeight) + " x tf-idf char 1-2";
    if (preset.method == train::Method::PrototypeSrn)
        text += ", re-ranking " + std::to_string(preset.prototype.candidates) + " " +
                std::string(train::candidateSourceName(preset.prototype.candidateSource)) + " candidates";
    if (preset.method == train::Method::PrototypeSrn && preset.prototype.firstStageWeight > 0)
        text += " + " + numberText(preset.prototype.firstStageWeight) + " x their first-stage score";
    return text;
}

LoadedRun loadRun(const fs::path& run, const DictionaryArguments& data, const EncoderArguments& encoderArgs,
                  const SetupReader& readSetup) {
    train::RunModel model = train::loadRunModel(run, encoderArgs.options());
    LoadedRun loaded;
    loaded.info = std::move(model.info);
    loaded.preset = std::move(model.preset);
    loaded.modelDirectory = std::move(model.modelDirectory);
    loaded.encoder.emplace(std::move(model.encoder));

    loaded.data = data;
    loaded.data.homonymExpansion = loaded.data.homonymExpansion || loaded.preset.homonymExpansion;
    loaded.setup = readSetup(loaded.data);

    loaded.evalData = buildEvalData(loaded.data, loaded.setup);
    return loaded;
}

retrieval::KnnDatastore runDatastore(const LoadedRun& run, const train::MethodLinker& linker, const fs::path& file,
                                     const fs::path& projectFile, ConsoleProgress& progress) {
    const std::string fingerprint = run.encoder->fingerprint();
    std::optional<project::ProjectStore> projectStore;
    if (!projectFile.empty()) {
        if (!file.empty()) throw Error("give --datastore or --project, not both");
        projectStore.emplace(project::ProjectStore::open(projectFile));
        projectStore->putRun({fs::absolute(run.modelDirectory.parent_path()).filename().string(),
                              fs::absolute(run.modelDirectory.parent_path()),
                              run.preset.name,
                              {}});
        if (auto stored =
                project::loadDatastore(*projectStore, project::trainingDatastoreName(fingerprint), fingerprint))
            return std::move(*stored);
    } else if (!file.empty() && fs::exists(file)) {
        return retrieval::KnnDatastore::load(file, fingerprint);
    }
    const ProgressSink sink = progress.sink();
    // The training mentions as the method reads them: in their own corpus's sentences.
    const auto inputs =
        train::mentionInputs(run.preset, run.setup.train, train::tokenCounterOf(run.encoder->tokenizer()));
    auto store = curation::buildTrainingDatastore(linker, run.evalData.trainQueries, inputs, fingerprint, &sink);
    if (projectStore)
        project::saveDatastore(*projectStore, project::trainingDatastoreName(fingerprint), store);
    else if (!file.empty())
        store.save(file);
    return store;
}

namespace {

train::LinkerOptions linkerOptionsOf(const LoadedRun& run, unsigned threads) {
    train::LinkerOptions options;
    options.sparseWeight = run.info.sparseWeight;
    options.threads = threads;
    return options;
}

}  // namespace

RunLinker::RunLinker(const LoadedRun& run, unsigned threads, const ProgressSink* progress)
    : method(run.preset, *run.encoder, run.evalData.dictionary, run.setup.kb.get(), linkerOptionsOf(run, threads),
             progress) {}

eval::RankFn RunLinker::rankFunction() const { return augmented ? augmented->rankFunction() : method.rankFunction(); }

std::unique_ptr<RunLinker> prepareRunLinker(const LoadedRun& run, const AugmentArguments& augment,
                                            std::optional<curation::AugmentedOptions> linking, unsigned threads,
                                            ConsoleProgress& progress) {
    const auto start = Clock::now();
    const ProgressSink sink = progress.sink();
    auto linker = std::make_unique<RunLinker>(run, threads, &sink);
    linker->seconds = secondsSince(start);
    if (augment.active())
        linker->datastore.emplace(runDatastore(run, linker->method, augment.datastore, augment.project, progress));
    if (linking) {
        linker->linking = *linking;
        linker->augmented.emplace(linker->method, run.evalData.dictionary,
                                  linker->datastore ? &*linker->datastore : nullptr, *linking);
    }
    return linker;
}

namespace {

// --linking: every linking over the same encoded names and datastore, one row each.
void compareLinkings(const RunEvalArguments& args, const LoadedRun& loaded, const train::MethodLinker& linker,
                     const retrieval::KnnDatastore& datastore, std::span<const curation::AugmentedOptions> linkings,
                     const eval::EvalOptions& evalOptions, ConsoleProgress& progress) {
    nlohmann::json rows = nlohmann::json::array();
    std::ostringstream table;
    table << "linking                                              Acc@1   Acc@5  seconds\n";
    for (const auto& options : linkings) {
        const curation::AugmentedLinker augmented(linker, loaded.evalData.dictionary, &datastore, options);
        const eval::EvalResult result =
            eval::evaluate(loaded.evalData.queries, loaded.evalData.dictionary, augmented.rankFunction(), evalOptions);
        const std::string name = AugmentArguments::describe(options);
        rows.push_back({{"linking", name},
                        {"acc@1", result.all.accuracy(1)},
                        {"acc@5", result.all.accuracy(5)},
                        {"mentions", result.all.mentions},
                        {"seconds", result.seconds}});
        char line[160];
        std::snprintf(line, sizeof line, "%-50s  %6.4f  %6.4f  %7.1f\n", name.c_str(), result.all.accuracy(1),
                      result.all.accuracy(5), result.seconds);
        table << line;
    }
    progress.finish();
    if (args.json) {
        const nlohmann::json report = {{"run", args.run.string()},
                                       {"preset", loaded.preset.name},
                                       {"split", loaded.data.split},
                                       {"datastore_keys", datastore.size()},
                                       {"linkings", rows}};
        std::cout << report.dump(2) << '\n';
        return;
    }
    std::cout << "run " << args.run.string() << ": " << train::methodName(loaded.preset.method) << " (preset "
              << loaded.preset.name << "), " << loaded.data.split << " split, "
              << loaded.evalData.queries.queries.size() << " mentions, datastore of " << datastore.size()
              << " training keys\n"
              << table.str();
}

}  // namespace

void runEvalOfRun(const RunEvalArguments& args) {
    const auto start = Clock::now();
    const LoadedRun loaded = loadRun(args.run, args.data, args.encoder);
    const train::TrainingPreset& preset = loaded.preset;
    const train::RunInfo& info = loaded.info;
    const fs::path& modelDirectory = loaded.modelDirectory;
    const DictionaryArguments& data = loaded.data;
    const CorpusSetup& setup = loaded.setup;
    const encoder::TextEncoder& encoder = *loaded.encoder;
    const EvalData& evalData = loaded.evalData;
    // Checked before the names are encoded: a wrong option costs nothing.
    const bool comparing = !args.augment.linkings.empty();
    const std::vector<curation::AugmentedOptions> compared =
        comparing ? args.augment.linkingOptions(evalData.kbEntries, preset.triplet.sieveThreshold)
                  : std::vector<curation::AugmentedOptions>{};
    const curation::AugmentedOptions augmentOptions =
        comparing ? curation::AugmentedOptions{}
                  : args.augment.options(evalData.kbEntries, preset.triplet.sieveThreshold);

    // On stderr only (console_progress.h), and finished before anything goes to stdout.
    ConsoleProgress progress;
    const ProgressSink sink = progress.sink();
    std::optional<curation::AugmentedOptions> linking;
    if (args.augment.active() && !comparing) linking = augmentOptions;
    const auto runLinker = prepareRunLinker(loaded, args.augment, linking, args.threads, progress);
    const train::MethodLinker& linker = runLinker->method;
    const double indexSeconds = runLinker->seconds;

    eval::EvalOptions evalOptions;
    evalOptions.k = std::max<std::size_t>(args.k, eval::kMinimumDepth);
    evalOptions.trainingIds = evalData.trainingIds;
    evalOptions.progress = sink;
    // The context is cut to fit the preset's length by the model's own tokenizer, as the
    // trainer cut it for training and validation.
    evalOptions.partText = train::mentionInputs(preset, setup.evaluated, train::tokenCounterOf(encoder.tokenizer()));
    const std::optional<retrieval::KnnDatastore>& datastore = runLinker->datastore;
    const std::optional<curation::AugmentedLinker>& augmented = runLinker->augmented;
    if (comparing) {
        compareLinkings(args, loaded, linker, *datastore, compared, evalOptions, progress);
        return;
    }
    const eval::EvalResult result =
        eval::evaluate(evalData.queries, evalData.dictionary, runLinker->rankFunction(), evalOptions);
    const double seconds = secondsSince(start);
    progress.finish();

    eval::ReportOptions reportOptions;
    reportOptions.extra = {{"method", std::string(train::methodName(preset.method))},
                           {"ranker", runRankerDescription(loaded)},
                           {"split", data.split},
                           {"knowledge_base", data.kb.string()},
                           {"dictionary_entries", std::to_string(evalData.dictionary.size())},
                           {"index_seconds", std::to_string(indexSeconds)},
                           {"run", args.run.string()},
                           {"preset", preset.name},
                           {"preset_file", train::presetFile(args.run).string()},
                           {"schedule", info.schedule},
                           {"run_status", info.status},
                           {"best_epoch", std::to_string(info.bestEpoch)},
                           {"model", modelDirectory.string()},
                           {"homonym_expansion", data.homonymExpansion ? "yes" : "no"}};
    if (preset.method == train::Method::BioSyn)
        reportOptions.extra.emplace("sparse_weight", numberText(info.sparseWeight));
    if (augmented) {
        reportOptions.extra.emplace("linking", AugmentArguments::describe(augmentOptions));
        reportOptions.extra.emplace("datastore_keys", std::to_string(datastore->size()));
        if (!args.augment.datastore.empty()) reportOptions.extra.emplace("datastore", args.augment.datastore.string());
    }
    if (!args.report.empty()) eval::writeJsonReport(args.report, result, reportOptions);
    if (!args.perMention.empty())
        eval::writePerMention(args.perMention, result, evalData.queries.queries, evalData.dictionary);

    if (args.json) {
        nlohmann::json report = nlohmann::json::parse(eval::reportJson(result, reportOptions));
        // "seconds" is the whole command: reading, dictionary, encoding and ranking.
        report["seconds"] = seconds;
        report["evaluate_seconds"] = result.seconds;
        std::cout << report.dump(2) << '\n';
    } else {
        std::cout << "run " << args.run.string() << ": " << train::methodName(preset.method) << " (preset "
                  << preset.name << "), schedule " << info.schedule << ", best epoch " << info.bestEpoch << " ("
                  << info.status << ")\n";
        if (augmented)
            std::cout << "linking: " << AugmentArguments::describe(augmentOptions) << ", datastore of "
                      << datastore->size() << " keys\n";
        std::cout << eval::formatTable(result);
        std::cout << "dictionary entries: " << evalData.dictionary.size()
                  << ", linker ready (names encoded, indexes built) in " << indexSeconds << " s, total " << seconds
                  << " s\n";
    }
}

}  // namespace linkscope::cli
