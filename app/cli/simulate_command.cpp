// linkscope-cli simulate-curation: the simulated curation experiment on a trained run.
//
//   linkscope-cli simulate-curation --run RUN --train F --dev F --kb F [--spelling F]
//       (--knn [...] | --sieve SPEC) [--datastore FILE] [--csv FILE] [--svg FILE] [--evaluate-every N] [--json]
//
// Walks the evaluated split's documents (dev by default) in order; the gold link of every
// mention the linker gets wrong is fed back as a correction at once (curation/simulated_curation.h).
// Prints the final accuracies with and without feedback, writes the curve as CSV and SVG.
//
//   linkscope-cli simulate-curation --order queue|document|queue,document [--apply-to-all]
//       [--run RUN (--knn [...] | --sieve SPEC)] [--max-decisions N] [--target ACC]
//       [--margin-scale M] [--confidence-weight C] [--disagreement-weight W] [--reach-weight R]
//       --train F --dev F --kb F [--csv FILE] [--svg FILE] [--json]
//
// With --order, the mention-level review instead (review_simulation.h): one mention
// decided at a time, in document order or by the review queue, with the GUI's sparse ranker or,
// given --run RUN and --knn / --sieve, with the run and its datastore, fed every decision.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <memory>

#include "augment_options.h"
#include "commands.h"
#include "console_progress.h"
#include "curation/simulated_curation.h"
#include "curation_plot.h"
#include "dense_engine.h"
#include "review_simulation.h"
#include "run_eval.h"
#include "train/method_linker.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct SimulateArguments {
    std::filesystem::path run;
    DictionaryArguments data;
    EncoderArguments encoder;
    AugmentArguments augment;
    std::filesystem::path csv;
    std::filesystem::path svg;
    std::size_t evaluateEvery = 1;
    unsigned threads = 0;
    bool json = false;
    /// --order: the mention-level review walk instead of the document walk.
    ReviewSimulationArguments review;
};

void writeText(const std::filesystem::path& file, const std::string& text) {
    AtomicFileWriter writer(file);
    writer.stream() << text;
    writer.commit();
}

void runSimulation(const SimulateArguments& args) {
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

}  // namespace

void addSimulateCurationCommand(CLI::App& app) {
    auto args = std::make_shared<SimulateArguments>();
    CLI::App* cmd = app.add_subcommand("simulate-curation", std::string(denseOnlyDescription("simulate-curation")));
    args->data.split = "dev";
    args->data.addOptions(*cmd);
    cmd->add_option("--run", args->run,
                    "A training run (linkscope-cli train --out); required without --order, "
                    "optional with it (then with --knn or --sieve)")
        ->check(CLI::ExistingDirectory);
    args->encoder.addOptions(*cmd, false, 25);
    args->augment.addOptions(*cmd);
    cmd->add_option("--csv", args->csv, "Write the curve (one row per document) to this CSV file");
    cmd->add_option("--svg", args->svg, "Plot the curve into this SVG file");
    cmd->add_option("--evaluate-every", args->evaluateEvery,
                    "Link the remaining documents again after every N-th document (the costly part)")
        ->capture_default_str();
    cmd->add_option("--threads", args->threads, "Search threads (0: one per core)");
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->add_option(
           "--order", args->review.orders,
           "Review one mention at a time in this order (queue, document, or both: queue,document) "
           "with the sparse ranker (or the --run with its datastore), and follow the accuracy of the whole split")
        ->delimiter(',');
    cmd->add_flag("--apply-to-all", args->review.applyToAll,
                  "--order: after each decision, apply it to the identical undecided mentions linked otherwise");
    cmd->add_option("--max-decisions", args->review.maxDecisions, "--order: stop after N decisions (0: all)")
        ->capture_default_str();
    cmd->add_option("--margin-scale", args->review.policy.marginScale,
                    "--order queue: the lead over the second entity above which the margin adds no doubt")
        ->capture_default_str();
    cmd->add_option("--confidence-weight", args->review.policy.confidenceWeight,
                    "--order queue: the exponent of the top score in the queue's sureness (0: not read)")
        ->capture_default_str();
    cmd->add_option("--disagreement-weight", args->review.policy.disagreementWeight,
                    "--order queue: the weight of the other linkers' disagreement in the queue's doubt")
        ->capture_default_str();
    cmd->add_option(
           "--reach-weight", args->review.policy.reachWeight,
           "--order queue: what one mention the decision reaches weighs against the mention itself (0: not read)")
        ->capture_default_str();
    cmd->add_option("--target", args->review.target, "--order: the accuracy whose number of decisions is reported")
        ->capture_default_str();
    cmd->callback([args] {
        if (!args->review.orders.empty()) {
            args->review.run = args->run;
            args->review.encoder = args->encoder;
            args->review.augment = args->augment;
            args->review.threads = args->threads;
            args->review.data = args->data;
            args->review.csv = args->csv;
            args->review.svg = args->svg;
            args->review.json = args->json;
            runReviewSimulation(args->review);
            return;
        }
        if (args->run.empty())
            throw Error("simulate-curation needs --run RUN (or --order for the mention-level review)");
        runSimulation(*args);
    });
}

}  // namespace linkscope::cli
