#include "document_simulation.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <string>

#include "console_progress.h"
#include "curation/simulated_curation.h"
#include "curation_plot.h"
#include "run_eval.h"
#include "train/method_linker.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

void writeText(const std::filesystem::path& file, const std::string& text) {
    AtomicFileWriter writer(file);
    writer.stream() << text;
    writer.commit();
}

}  // namespace

void runDocumentSimulation(const DocumentSimulationArguments& args) {
    const auto start = std::chrono::steady_clock::now();
    if (!args.augment.active())
        throw Error("a simulated curation feeds corrections into a datastore: give --knn or --sieve SPEC");
    const LoadedRun loaded = loadRun(args.run, args.data, args.encoder);
    // On stderr only (console_progress.h), and finished before anything goes to stdout.
    ConsoleProgress progress;
    const ProgressSink sink = progress.sink();
    const curation::AugmentedOptions options =
        args.augment.options(loaded.evalData.kbEntries, loaded.preset.triplet.sieveThreshold);

    train::LinkerOptions linkerOptions;
    linkerOptions.sparseWeight = loaded.info.sparseWeight;
    linkerOptions.threads = args.threads;
    const train::MethodLinker linker(loaded.preset, *loaded.encoder, loaded.evalData.dictionary, loaded.setup.kb.get(),
                                     linkerOptions, &sink);
    retrieval::KnnDatastore datastore =
        runDatastore(loaded, linker, args.augment.datastore, args.augment.project, progress);
    const std::size_t trainingKeys = datastore.size();
    const curation::AugmentedLinker augmented(linker, loaded.evalData.dictionary, &datastore, options);

    curation::CurationSimulationOptions simulationOptions;
    simulationOptions.evaluateEvery = args.evaluateEvery;
    simulationOptions.progress = sink;
    const auto inputs =
        train::mentionInputs(loaded.preset, loaded.setup.evaluated, train::tokenCounterOf(loaded.encoder->tokenizer()));
    const curation::CurationSimulation simulation =
        curation::simulateCuration(augmented, datastore, loaded.evalData.queries.queries, inputs, simulationOptions);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.finish();

    const std::string linking = AugmentArguments::describe(options);
    if (!args.csv.empty()) writeText(args.csv, curation::curationCsv(simulation));
    if (!args.svg.empty())
        writeText(args.svg, curationPlotSvg(simulation, "Simulated curation: " +
                                                            std::string(train::methodName(loaded.preset.method)) +
                                                            ", " + linking + ", " + loaded.data.split + " split"));

    if (args.json) {
        nlohmann::json report = {{"run", args.run.string()},
                                 {"preset", loaded.preset.name},
                                 {"linking", linking},
                                 {"split", loaded.data.split},
                                 {"documents", simulation.documents},
                                 {"mentions", simulation.mentions},
                                 {"training_keys", trainingKeys},
                                 {"corrections", simulation.corrections},
                                 {"accuracy_with_feedback", simulation.accuracyWithFeedback},
                                 {"accuracy_without", simulation.accuracyWithout},
                                 {"gain", simulation.accuracyWithFeedback - simulation.accuracyWithout},
                                 {"seconds", seconds}};
        std::cout << report.dump(2) << '\n';
        return;
    }
    std::cout << "simulated curation of " << simulation.documents << " documents (" << simulation.mentions
              << " mentions, " << loaded.data.split << "), " << linking << ", datastore of " << trainingKeys
              << " training keys\n"
              << "corrections fed: " << simulation.corrections << "\n"
              << "Acc@1 as each document is reached: " << simulation.accuracyWithFeedback << " with feedback, "
              << simulation.accuracyWithout << " without (gain "
              << simulation.accuracyWithFeedback - simulation.accuracyWithout << ")\n"
              << "total " << seconds << " s\n";
}

}  // namespace linkscope::cli
