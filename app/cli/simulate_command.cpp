// linkscope-cli simulate-curation: the simulated curation experiment on a trained run.
//
//   linkscope-cli simulate-curation --run RUN --train F --dev F --kb F [--spelling F]
//       (--knn [...] | --sieve SPEC) [--datastore FILE] [--csv FILE] [--svg FILE] [--evaluate-every N] [--json]
//
// Walks the evaluated split's documents (dev by default) in order; the gold link of every
// mention the linker gets wrong is fed back as a correction at once (document_simulation.h).
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
//
//   linkscope-cli simulate-curation --order queue --project FILE|URI --curator NAME [--rate D]
//       [--limit N] [--claim-ttl S] [ARGS] [--json]
//
// With --curator, one simulated curator whose decisions are stored in the project; several of
// them, one process each, drive a team project on a server (simulated_curator.h). Without corpus
// and KB options it reads those the project's manifest names (project_dictionary_arguments.h).
//
// Built into both programs (dense_engine.h): linkscope-cli runs the review with the sparse ranker
// and hands a command line with --run or --model to linkscope-cli-dense, right after parsing it.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "commands.h"
#include "dense_engine.h"
#include "document_simulation.h"
#include "project_dictionary_arguments.h"
#include "review_simulation.h"
#include "util/error.h"
#if LINKSCOPE_HAVE_TORCH
#include "review_run_setup.h"
#endif

namespace linkscope::cli {
namespace {

struct SimulateArguments {
    /// Without --order: the document walk on a run; its fields are shared with --order's.
    DocumentSimulationArguments walk;
    /// --order: the mention-level review walk instead of the document walk.
    ReviewSimulationArguments review;
};

}  // namespace

void addSimulateCurationCommand(CLI::App& app) {
    auto args = std::make_shared<SimulateArguments>();
    CLI::App* cmd = app.add_subcommand(
        "simulate-curation",
        "Walk the documents in order, feed every wrong link's gold back as a correction, and compare with no feedback");
    args->walk.data.split = "dev";
    args->walk.data.addOptions(*cmd);
    // A simulated curator on a project reads the KB the project names (checked in the callback).
    cmd->get_option("--kb")->required(false);
    cmd->add_option("--run", args->walk.run,
                    "A training run (linkscope-cli train --out); required without --order, "
                    "optional with it (then with --knn or --sieve)")
        ->check(CLI::ExistingDirectory);
    args->walk.encoder.addOptions(*cmd, false, 25);
    args->walk.augment.addOptions(*cmd);
    cmd->add_option("--csv", args->walk.csv, "Write the curve (one row per document) to this CSV file");
    cmd->add_option("--svg", args->walk.svg, "Plot the curve into this SVG file");
    cmd->add_option("--evaluate-every", args->walk.evaluateEvery,
                    "Link the remaining documents again after every N-th document (the costly part)")
        ->capture_default_str();
    cmd->add_option("--threads", args->walk.threads, "Search threads (0: one per core)");
    cmd->add_flag("--json", args->walk.json, "Print one JSON object");
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
    cmd->add_option("--curator", args->review.curator,
                    "One simulated curator that stores its decisions in --project (a file or a postgresql:// "
                    "team project) under this name, taking its work through claims on a server (--order: "
                    "queue by default)");
    cmd->add_option("--rate", args->review.rate,
                    "--curator: decisions per second, the curator's pause before each (0: as fast as it can)")
        ->capture_default_str();
    cmd->add_option("--limit", args->review.limit,
                    "--curator: stop after N decisions stored (0: --max-decisions, or until no mention is left)")
        ->capture_default_str();
    cmd->add_option("--claim-ttl", args->review.claimTtl,
                    "--curator on a server: seconds a claim lasts unless the curator renews it")
        ->capture_default_str()
        ->check(CLI::Range(1U, 86400U));
    cmd->get_option("--project")
        ->description(
            "Project file or postgresql:// URI: the kNN datastore of --run is kept inside it; with --curator, the "
            "simulated curator's decisions are stored in it");
    cmd->callback([args] {
        // A simulated curator given no corpus or KB reads those its project names.
        if (!args->walk.augment.project.empty() && !args->review.curator.empty())
            takeDictionaryFromProject(args->walk.data, args->walk.augment.project);
        if (args->walk.data.kb.empty())
            throw Error("--kb is required (a simulated curator, --curator with --project, reads the project's)");
#if !LINKSCOPE_HAVE_TORCH
        // A run or a model: linkscope-cli-dense links with it, before anything is read.
        if (!args->walk.run.empty() || !args->walk.encoder.model.empty())
            handOverToDenseEngine("linkscope-cli simulate-curation with --run or --model");
#endif
        // A simulated curator that stores its decisions walks the review queue unless told otherwise.
        if (args->review.orders.empty() && !args->review.curator.empty()) args->review.orders = {"queue"};
        if (!args->review.orders.empty()) {
            args->review.run = args->walk.run;
            args->review.encoder = args->walk.encoder;
            args->review.augment = args->walk.augment;
            args->review.threads = args->walk.threads;
            args->review.data = args->walk.data;
            args->review.csv = args->walk.csv;
            args->review.svg = args->walk.svg;
            args->review.json = args->walk.json;
            args->review.project = args->walk.augment.project;
            ReviewSetupFunction setup = &sparseReviewSetup;
#if LINKSCOPE_HAVE_TORCH
            if (!args->review.run.empty()) setup = &runReviewSetup;
#endif
            runReviewSimulation(args->review, setup);
            return;
        }
        if (args->walk.run.empty())
            throw Error("simulate-curation needs --run RUN (or --order for the mention-level review)");
#if LINKSCOPE_HAVE_TORCH
        // linkscope-cli handed a command line with --run over above: only linkscope-cli-dense gets here.
        runDocumentSimulation(args->walk);
#endif
    });
}

}  // namespace linkscope::cli
