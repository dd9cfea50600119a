#include "review_simulation.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <memory>

#include "console_progress.h"
#include "curation/augmented_linker.h"
#include "curation/review_walk.h"
#include "curation/run_review_linker.h"
#include "curation/sparse_candidates.h"
#include "curation/sparse_review_linker.h"
#include "review_plot.h"
#include "run_eval.h"
#include "train/method_inputs.h"
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

// The accuracy after `decisions` decisions (the last step when the walk stopped earlier).
double accuracyAfter(const curation::ReviewWalk& walk, std::size_t decisions) {
    return walk.steps[std::min(decisions, walk.steps.size() - 1)].accuracy;
}

// What a walk links with, and its mentions; the objects the linker reads live here too.
struct ReviewSetup {
    virtual ~ReviewSetup() = default;
    std::vector<curation::ReviewMention> mentions;
    std::unique_ptr<curation::ReviewLinker> linker;
    std::string linking;  ///< in words, for the report
};

// The queries as the evaluation builds them (buildEvalData), without its dictionary.
eval::QuerySet reviewQueries(const DictionaryArguments& data, const CorpusSetup& setup) {
    eval::QueryOptions queryOptions;
    queryOptions.types = data.types;
    queryOptions.expandAbbreviations = !data.noAbbreviations;
    queryOptions.splitComposites = !data.noComposites;
    queryOptions.normalizer = eval::bioSynQueryNormalizer(setup.spelling);
    return eval::buildQueries(setup.evaluated, *setup.kb, queryOptions);
}

// The GUI's ranker before a model is trained: the KB's homonym-expanded names.
struct SparseSetup : ReviewSetup {
    ~SparseSetup() override { linker.reset(); }  // it was built from what is below: it goes first
    CorpusSetup corpus;
    eval::QuerySet queries;
    std::unique_ptr<curation::SparseCandidates> sparse;
};

std::unique_ptr<ReviewSetup> sparseSetup(const ReviewSimulationArguments& args, const ProgressSink& sink) {
    auto setup = std::make_unique<SparseSetup>();
    setup->corpus = CorpusSetup::read(args.data);
    setup->queries = reviewQueries(args.data, setup->corpus);
    setup->sparse = std::make_unique<curation::SparseCandidates>(*setup->corpus.kb, /*homonymExpansion=*/true, sink);
    setup->linker = std::make_unique<curation::SparseReviewLinker>(*setup->sparse, setup->queries.queries, sink);
    setup->mentions = curation::reviewMentionsOf(setup->queries.queries);
    setup->linking = "sparse TF-IDF (homonym-expanded KB names)";
    return setup;
}

// A trained run with the datastore of its training mentions, as the GUI links once a run is
// trained; the queue's other linkers are sparse TF-IDF and the run without its datastore.
struct RunSetup : ReviewSetup {
    ~RunSetup() override { linker.reset(); }  // it reads what is below: it goes first
    std::unique_ptr<LoadedRun> loaded;
    std::unique_ptr<train::MethodLinker> model;
    std::unique_ptr<retrieval::KnnDatastore> datastore;
    std::unique_ptr<curation::AugmentedLinker> augmented;
};

std::unique_ptr<ReviewSetup> runSetup(const ReviewSimulationArguments& args, ConsoleProgress& progress) {
    if (!args.augment.active())
        throw Error("--order with --run links with the run's datastore: give --knn or --sieve SPEC");
    const ProgressSink sink = progress.sink();
    auto setup = std::make_unique<RunSetup>();
    setup->loaded = std::make_unique<LoadedRun>(loadRun(args.run, args.data, args.encoder));
    const LoadedRun& loaded = *setup->loaded;
    const auto& queries = loaded.evalData.queries.queries;
    const curation::AugmentedOptions options =
        args.augment.options(loaded.evalData.kbEntries, loaded.preset.triplet.sieveThreshold);
    train::LinkerOptions linkerOptions;
    linkerOptions.sparseWeight = loaded.info.sparseWeight;
    linkerOptions.threads = args.threads;
    setup->model = std::make_unique<train::MethodLinker>(loaded.preset, *loaded.encoder, loaded.evalData.dictionary,
                                                         loaded.setup.kb.get(), linkerOptions, &sink);
    setup->datastore = std::make_unique<retrieval::KnnDatastore>(
        runDatastore(loaded, *setup->model, args.augment.datastore, args.augment.project, progress));
    setup->augmented = std::make_unique<curation::AugmentedLinker>(*setup->model, loaded.evalData.dictionary,
                                                                   setup->datastore.get(), options);
    const auto input =
        train::mentionInputs(loaded.preset, loaded.setup.evaluated, train::tokenCounterOf(loaded.encoder->tokenizer()));

    // The other linkers' proposals: sparse TF-IDF over the homonym-expanded names, and the run
    // without its datastore. Neither learns from a decision.
    std::vector<std::vector<std::string>> others(2);
    {
        const curation::SparseCandidates sparse(*loaded.setup.kb, /*homonymExpansion=*/true, sink);
        const curation::SparseReviewLinker sparseLinker(sparse, queries, sink);
        for (std::size_t q = 0; q < queries.size(); ++q) others[0].push_back(sparseLinker.signals(q).proposal);
    }
    {
        const curation::AugmentedLinker alone(*setup->model, loaded.evalData.dictionary, nullptr, {});
        std::vector<std::string> inputs;
        for (const auto& query : queries)
            for (std::size_t part = 0; part < query.parts.size(); ++part) inputs.push_back(input(query, part));
        const auto ranked = alone.link(inputs, 1);
        std::size_t at = 0;
        for (const auto& query : queries) {
            std::string proposal;
            for (std::size_t part = 0; part < query.parts.size(); ++part, ++at) {
                if (ranked[at].empty()) {
                    proposal.clear();
                    at += query.parts.size() - part;
                    break;
                }
                if (part > 0) proposal += '|';
                proposal += alone.entityId(ranked[at].front().entity);
            }
            others[1].push_back(std::move(proposal));
        }
    }
    setup->linker = std::make_unique<curation::RunReviewLinker>(*setup->augmented, *setup->datastore, queries, input,
                                                                std::move(others), sink);
    setup->mentions = curation::reviewMentionsOf(queries);
    setup->linking = std::string(train::methodName(loaded.preset.method)) + " run with its datastore, " +
                     AugmentArguments::describe(options);
    return setup;
}

}  // namespace

void runReviewSimulation(const ReviewSimulationArguments& args) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<curation::ReviewOrderKind> orders;
    for (const std::string& name : args.orders) {
        const auto order = curation::reviewOrderFromName(name);
        if (!order) throw Error("--order: unknown order '" + name + "' (queue or document)");
        orders.push_back(*order);
    }
    if (orders.empty()) throw Error("--order: give queue, document or both (queue,document)");

    ConsoleProgress progress;  // stderr only, finished before anything goes to stdout
    const ProgressSink sink = progress.sink();
    const std::unique_ptr<ReviewSetup> setup = args.run.empty() ? sparseSetup(args, sink) : runSetup(args, progress);
    curation::ReviewLinker& linker = *setup->linker;
    const std::vector<curation::ReviewMention>& mentions = setup->mentions;

    std::vector<curation::ReviewWalk> walks;
    for (const auto order : orders) {
        curation::ReviewWalkOptions options;
        options.order = order;
        options.applyToAll = args.applyToAll;
        options.policy = args.policy;
        options.maxDecisions = args.maxDecisions;
        options.progress = sink;
        walks.push_back(curation::simulateReview(linker, mentions, options));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.finish();

    const std::string& linking = setup->linking;
    const std::string applied = args.applyToAll ? ", apply to all identical mentions" : "";
    if (!args.csv.empty()) writeText(args.csv, curation::reviewWalkCsv(walks));
    if (!args.svg.empty())
        writeText(args.svg,
                  reviewPlotSvg(walks, args.target,
                                "Simulated review: " + linking + applied + ", " + args.data.split + " split"));

    // Accuracy at a few fixed fractions of the mentions, the same for every order.
    const std::size_t n = mentions.size();
    const std::vector<std::size_t> checkpoints{n / 10, n / 4, n / 2};
    if (args.json) {
        nlohmann::json report = {{"linking", linking},
                                 {"split", args.data.split},
                                 {"mentions", n},
                                 {"apply_to_all", args.applyToAll},
                                 {"target", args.target},
                                 {"policy",
                                  {{"margin_scale", args.policy.marginScale},
                                   {"confidence_weight", args.policy.confidenceWeight},
                                   {"disagreement_weight", args.policy.disagreementWeight},
                                   {"reach_weight", args.policy.reachWeight}}},
                                 {"seconds", seconds},
                                 {"walks", nlohmann::json::array()}};
        for (const auto& walk : walks) {
            nlohmann::json entry = {
                {"order", curation::reviewOrderName(walk.order)},  {"decisions", walk.steps.back().decisions},
                {"corrections", walk.steps.back().corrections},    {"applied_to_all", walk.steps.back().appliedToAll},
                {"initial_accuracy", walk.steps.front().accuracy}, {"final_accuracy", walk.steps.back().accuracy}};
            const auto reached = walk.decisionsToReach(args.target);
            entry["decisions_to_target"] = reached ? nlohmann::json(*reached) : nlohmann::json(nullptr);
            nlohmann::json at = nlohmann::json::object();
            for (const std::size_t c : checkpoints) at[std::to_string(c)] = accuracyAfter(walk, c);
            entry["accuracy_after"] = at;
            report["walks"].push_back(entry);
        }
        std::cout << report.dump(2) << '\n';
        return;
    }
    std::cout << "simulated review of " << n << " mentions (" << args.data.split << "), " << linking << applied << '\n';
    for (const auto& walk : walks) {
        const auto reached = walk.decisionsToReach(args.target);
        std::cout << curation::reviewOrderName(walk.order) << " order: accuracy " << walk.steps.front().accuracy
                  << " before any decision";
        for (const std::size_t c : checkpoints) std::cout << ", " << accuracyAfter(walk, c) << " after " << c;
        std::cout << "; " << args.target << " reached after "
                  << (reached ? std::to_string(*reached) + " decisions" : std::string("no number of decisions walked"))
                  << " (" << walk.steps.back().corrections << " corrections, " << walk.steps.back().appliedToAll
                  << " applied to all in " << walk.steps.back().decisions << " decisions)\n";
    }
    std::cout << "total " << seconds << " s\n";
}

}  // namespace linkscope::cli
