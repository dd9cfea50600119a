#include "review_run_setup.h"

#include <string>
#include <utility>
#include <vector>

#include "curation/augmented_linker.h"
#include "curation/run_review_linker.h"
#include "curation/sparse_candidates.h"
#include "curation/sparse_review_linker.h"
#include "run_eval.h"
#include "train/method_inputs.h"
#include "train/method_linker.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

// A trained run with the datastore of its training mentions, as the GUI links once a run is
// trained; the queue's other linkers are sparse TF-IDF and the run without its datastore.
struct RunSetup : ReviewSetup {
    ~RunSetup() override { linker.reset(); }  // it reads what is below: it goes first
    std::unique_ptr<LoadedRun> loaded;
    std::unique_ptr<train::MethodLinker> model;
    std::unique_ptr<retrieval::KnnDatastore> datastore;
    std::unique_ptr<curation::AugmentedLinker> augmented;
};

}  // namespace

std::unique_ptr<ReviewSetup> runReviewSetup(const ReviewSimulationArguments& args, ConsoleProgress& progress) {
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
    setup->inProject = projectMentionsOf(queries, args.data.split);
    setup->linking = std::string(train::methodName(loaded.preset.method)) + " run with its datastore, " +
                     AugmentArguments::describe(options);
    return setup;
}

}  // namespace linkscope::cli
