#include "review_simulation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

#include "console_progress.h"
#include "curation/review_walk.h"
#include "curation/sparse_candidates.h"
#include "curation/sparse_review_linker.h"
#include "review_plot.h"
#include "simulated_curator_report.h"
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

}  // namespace

std::unique_ptr<ReviewSetup> sparseReviewSetup(const ReviewSimulationArguments& args, ConsoleProgress& progress) {
    const ProgressSink sink = progress.sink();
    auto setup = std::make_unique<SparseSetup>();
    setup->corpus = CorpusSetup::read(args.data);
    setup->queries = reviewQueries(args.data, setup->corpus);
    setup->sparse = std::make_unique<curation::SparseCandidates>(*setup->corpus.kb, /*homonymExpansion=*/true, sink);
    setup->linker = std::make_unique<curation::SparseReviewLinker>(*setup->sparse, setup->queries.queries, sink);
    setup->mentions = curation::reviewMentionsOf(setup->queries.queries);
    setup->inProject = projectMentionsOf(setup->queries.queries, args.data.split);
    setup->linking = "sparse TF-IDF (homonym-expanded KB names)";
    return setup;
}

namespace {

// One simulated curator on a project: its decisions stored, its counts reported.
void runStoredReview(const ReviewSimulationArguments& args, curation::ReviewOrderKind order,
                     ReviewSetupFunction makeSetup) {
    if (args.project.empty()) throw Error("--curator: give the project to store the decisions in (--project)");
    if (args.applyToAll || !args.csv.empty() || !args.svg.empty())
        throw Error("--curator: --apply-to-all, --csv and --svg belong to the walk without a project");
    if (args.rate < 0.0 || !std::isfinite(args.rate)) throw Error("--rate: give decisions per second, 0 or more");
    SimulatedCuratorOptions options;
    options.project = args.project;
    options.curator = args.curator;
    options.rate = args.rate;
    options.limit = args.limit != 0 ? args.limit : args.maxDecisions;
    options.claimTimeToLive = std::chrono::seconds(std::max(1U, args.claimTtl));
    options.order = order;
    options.policy = args.policy;

    ConsoleProgress progress;  // stderr only, finished before anything goes to stdout
    const std::unique_ptr<ReviewSetup> setup = makeSetup(args, progress);
    progress.finish();
    if (setup->inProject.size() != setup->mentions.size())
        throw Error("simulate-curation: this linker does not name its mentions as a project does");
    const SimulatedCuratorResult result =
        runSimulatedCurator(*setup->linker, setup->mentions, setup->inProject, options);
    if (args.json)
        std::cout << simulatedCuratorJson(result, setup->linking, args.project.string()).dump(2) << '\n';
    else
        std::cout << simulatedCuratorText(result, setup->linking, args.project.string());
}

}  // namespace

void runReviewSimulation(const ReviewSimulationArguments& args, ReviewSetupFunction makeSetup) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<curation::ReviewOrderKind> orders;
    for (const std::string& name : args.orders) {
        const auto order = curation::reviewOrderFromName(name);
        if (!order) throw Error("--order: unknown order '" + name + "' (queue or document)");
        orders.push_back(*order);
    }
    if (orders.empty()) throw Error("--order: give queue, document or both (queue,document)");
    if (!args.curator.empty()) {
        if (orders.size() != 1) throw Error("--curator: one simulated curator walks one order (queue or document)");
        runStoredReview(args, orders.front(), makeSetup);
        return;
    }

    ConsoleProgress progress;  // stderr only, finished before anything goes to stdout
    const ProgressSink sink = progress.sink();
    const std::unique_ptr<ReviewSetup> setup = makeSetup(args, progress);
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
