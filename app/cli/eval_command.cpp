// linkscope-cli eval: BioSyn's evaluation protocol with a sparse (TF-IDF), dense (encoder and
// vector index) or hybrid (BioSyn's S_dense + lambda S_sparse) linker.
//
//   linkscope-cli eval --train FILE... --dev FILE... [--test FILE...] --kb FILE --split dev|test
//                      --method sparse|dense|hybrid [--model DIR] [--types T...] [--json] ...
//   linkscope-cli eval --run RUN_DIR ...   (a trained run, linked as its method does: run_eval.h)
//   linkscope-cli eval --model RUN_DIR --method dense|hybrid ...   (the run's model as a plain encoder)
//
// Dictionary: the KB's names plus the training mentions (and the dev mentions when the test split
// is evaluated), as BioSyn builds train/dev/test_dictionary.txt. Queries: the evaluated split's
// mentions after BioSyn's preprocessing (eval/queries.h).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "augment_options.h"
#include "commands.h"
#include "console_progress.h"
#include "dense_engine.h"
#include "dictionary_setup.h"
#include "encoder_options.h"
#include "run_as_encoder.h"
#include "sparse_index_setup.h"
#if LINKSCOPE_HAVE_TORCH
#include "dense_dictionary.h"
#include "encoder_ranking.h"
#include "run_eval.h"
#endif
#include "eval/compare.h"
#include "eval/evaluate.h"
#include "eval/report.h"
#include "retrieval/candidate_merge.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "train/run_directory.h"
#include "train/training_preset.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct EvalArguments {
    DictionaryArguments data;
    std::string method = "sparse";
    std::string sparse = "biosyn";
    SparseIndexArguments sparseIndex;  ///< --index, --sparse-search, --sparse-candidates
    std::size_t k = 64;
    bool comparePreprocessing = false;
    std::filesystem::path report;
    std::filesystem::path perMention;
    unsigned threads = 0;
    bool json = false;
    EncoderArguments encoder;
    DenseIndexArguments dense;
    float sparseWeight = 1.0f;
    std::filesystem::path run;               ///< --run RUN_DIR (--model RUN_DIR is taken as one too)
    std::vector<std::string> linkerOptions;  ///< options given that choose a linker (refused with a run)
    AugmentArguments augment;                ///< --knn / --sieve / --datastore (a run only)
};

struct Run {
    eval::EvalResult result;
    EvalData data;
    double indexSeconds = 0.0;
    bool indexLoaded = false;
    bool denseIndexLoaded = false;
    bool sparseApproximate = false;  ///< the sparse index searched approximately (above approximateAbove names)
    std::string denseKind;           ///< of the index used (a loaded one keeps the kind it was built as)
    std::string encoderRanker;       ///< dense and hybrid: what ranks (EncoderRanking::describe)
};

// BioSyn's sparse index over the dictionary (sparse_index_setup.h), with what it did noted in `run`.
retrieval::SparseIndex sparseIndexFor(const EvalArguments& args, const retrieval::NameDictionary& dictionary, Run& run,
                                      ConsoleProgress& progress) {
    PreparedSparseIndex prepared = prepareSparseIndex(args.sparseIndex, dictionary, progress);
    run.indexLoaded = prepared.loaded;
    run.sparseApproximate = prepared.index.approximate();
    return std::move(prepared.index);
}

#if LINKSCOPE_HAVE_TORCH
// Dense (S_dense alone) or BioSyn's hybrid ranking of the dictionary with an encoder.
void runDense(const EvalArguments& args, const encoder::TextEncoder& encoder, eval::EvalOptions& evalOptions, Run& run,
              ConsoleProgress& progress) {
    const auto ranking = prepareEncoderRanking(args.method, encoder, run.data.dictionary, args.dense, args.sparseIndex,
                                               args.sparseWeight, args.threads, progress);
    run.denseIndexLoaded = ranking->dense.loaded;
    run.denseKind = std::string(retrieval::denseIndexKindName(ranking->dense.index.kind()));
    if (ranking->sparse) {
        run.indexLoaded = ranking->sparse->loaded;
        run.sparseApproximate = ranking->sparse->index.approximate();
    }
    run.indexSeconds = ranking->seconds;
    run.encoderRanker = ranking->describe(args.encoder.model, encoder);
    run.result = eval::evaluate(run.data.queries, run.data.dictionary, ranking->rank, evalOptions);
}
#endif

// One complete evaluation: dictionary, index, queries, ranking.
// linkscope-cli hands every other method to linkscope-cli-dense (addEvalCommand): there it is sparse.
Run runOnce(const EvalArguments& args, const CorpusSetup& setup, [[maybe_unused]] const encoder::TextEncoder* encoder,
            bool preprocess, ConsoleProgress& progress) {
    Run run;
    progress.report("Building the queries and the dictionary", 0.0);
    run.data = buildEvalData(args.data, setup, preprocess);
    progress.report("Building the queries and the dictionary", 1.0);

    eval::EvalOptions evalOptions;
    evalOptions.progress = progress.sink();
    evalOptions.k = std::max<std::size_t>(args.k, eval::kMinimumDepth);
    evalOptions.trainingIds = run.data.trainingIds;
    const unsigned threads = args.threads;

#if LINKSCOPE_HAVE_TORCH
    if (args.method != "sparse") {
        runDense(args, *encoder, evalOptions, run, progress);
        return run;
    }
#endif

    if (args.sparse == "le-nguyen") {
        // Le & Nguyen's candidate generation: character 2-5 grams and, separately, word unigrams
        // without stop words, the two lists merged without duplicates (interleaved, since the
        // scores of the two models are not comparable).
        const auto indexStart = Clock::now();
        progress.report("Building sparse indexes", 0.0);
        const auto chars =
            retrieval::SparseIndex::build(run.data.dictionary, retrieval::TfidfSettings::leNguyenChars());
        const auto words =
            retrieval::SparseIndex::build(run.data.dictionary, retrieval::TfidfSettings::leNguyenWords());
        progress.report("Building sparse indexes", 1.0);
        run.indexSeconds = std::chrono::duration<double>(Clock::now() - indexStart).count();
        const eval::RankFn rank = [&chars, &words, threads](std::span<const std::string> queries, std::size_t k) {
            const auto byChars = chars.search(queries, k, threads);
            const auto byWords = words.search(queries, k, threads);
            std::vector<std::vector<retrieval::Candidate>> merged(queries.size());
            for (std::size_t i = 0; i < queries.size(); ++i) {
                const std::vector<retrieval::Candidate> lists[] = {byChars[i], byWords[i]};
                merged[i] = retrieval::mergeCandidates(lists, k);
            }
            return merged;
        };
        run.result = eval::evaluate(run.data.queries, run.data.dictionary, rank, evalOptions);
        return run;
    }

    const auto indexStart = Clock::now();
    const retrieval::SparseIndex index = sparseIndexFor(args, run.data.dictionary, run, progress);
    run.indexSeconds = std::chrono::duration<double>(Clock::now() - indexStart).count();
    const eval::RankFn rank = [&index, threads](std::span<const std::string> queries, std::size_t k) {
        return index.search(queries, k, threads);
    };
    run.result = eval::evaluate(run.data.queries, run.data.dictionary, rank, evalOptions);
    return run;
}

std::string rankerDescription(const EvalArguments& args, const Run& run) {
    if (args.method != "sparse") return run.encoderRanker;
    if (args.sparse == "le-nguyen")
        return retrieval::TfidfSettings::leNguyenChars().describe() + " + " +
               retrieval::TfidfSettings::leNguyenWords().describe() + ", merged";
    std::string bioSyn = retrieval::TfidfSettings::bioSyn().describe();
    if (run.sparseApproximate)
        bioSyn +=
            " (approximate: the " + std::to_string(args.sparseIndex.candidates) + " best names by char 3-grams scored)";
    return bioSyn;
}

// A training run is evaluated as its method links (run_eval.h); the options that choose
// another linker would be ignored, so they are refused, saying how to use them instead. Reached in
// linkscope-cli-dense alone: linkscope-cli hands a run over (addEvalCommand).
void runEvalOfRunDirectory(const EvalArguments& args, const std::filesystem::path& run) {
    if (!args.linkerOptions.empty()) {
        std::string given;
        for (const auto& name : args.linkerOptions) given += (given.empty() ? "" : ", ") + name;
        throw Error(run.string() + " is a training run, linked as its preset says: leave out " + given +
                    ", or add --method dense (or --method hybrid) to link its model as a plain encoder with them");
    }
#if LINKSCOPE_HAVE_TORCH
    RunEvalArguments runArgs;
    runArgs.run = run;
    runArgs.data = args.data;
    runArgs.encoder = args.encoder;
    runArgs.k = args.k;
    runArgs.report = args.report;
    runArgs.perMention = args.perMention;
    runArgs.threads = args.threads;
    runArgs.json = args.json;
    runArgs.augment = args.augment;
    runEvalOfRun(runArgs);
#endif
}

// --method dense or hybrid with a training run: its model as a plain encoder (run_as_encoder.h).
// --method sparse reads no encoder and the datastore options link as the method does: both
// refused with what to type.
EvalArguments runAsPlainEncoder(const EvalArguments& args, const std::filesystem::path& run) {
    const std::string runWord = run.string();
    if (args.method == "sparse")
        throw Error("--method sparse links without an encoder: leave out --model " + runWord +
                    " for the sparse linker alone, or leave out --method to link the run as its preset says "
                    "(linkscope-cli eval --run " +
                    runWord + " ...)");
    if (args.augment.active() || !args.augment.datastore.empty())
        throw Error("--knn, --sieve and --datastore link as the run's method does: leave out --method " + args.method +
                    " (linkscope-cli eval --run " + runWord + " --knn ...)");
    EvalArguments plain = args;
    plain.run.clear();
    plain.encoder = runModelAsEncoder(args.encoder, run, args.method);
    return plain;
}

void runEval(const EvalArguments& given) {
    if (!given.run.empty() && !given.encoder.model.empty()) throw Error("give --run RUN_DIR or --model DIR, not both");
    const bool modelIsRun = !given.encoder.model.empty() && train::isRunDirectory(given.encoder.model);
    const std::filesystem::path runFolder = modelIsRun ? given.encoder.model : given.run;
    const bool methodGiven =
        std::find(given.linkerOptions.begin(), given.linkerOptions.end(), "--method") != given.linkerOptions.end();
    if (!runFolder.empty() && !methodGiven) {
        runEvalOfRunDirectory(given, runFolder);
        return;
    }
    EvalArguments args = runFolder.empty() ? given : runAsPlainEncoder(given, runFolder);
#if LINKSCOPE_HAVE_TORCH
    // A BioSyn folder brings its learned lambda (sparse_weight.pt).
    if (args.method == "hybrid" && !args.encoder.model.empty())
        args.sparseWeight = hybridSparseWeight(args.encoder.model, args.sparseWeight,
                                               std::find(args.linkerOptions.begin(), args.linkerOptions.end(),
                                                         "--sparse-weight") != args.linkerOptions.end());
#endif
    if (args.augment.active() || !args.augment.datastore.empty())
        throw Error("--knn, --sieve and --datastore link with a trained method's encoder: give --run RUN_DIR");
    const auto start = Clock::now();
    if (args.sparse == "le-nguyen" && !args.sparseIndex.file.empty())
        throw Error("--index saves the BioSyn index only; leave it out with --sparse le-nguyen");
    if (args.method != "sparse" && args.encoder.model.empty())
        throw Error("--method " + args.method + " needs --model DIR (an encoder checkpoint)");
    if (args.method == "dense" && !args.sparseIndex.file.empty())
        throw Error("--index is the sparse index; --method dense uses --dense-index");

    // On stderr only (console_progress.h), and finished before anything goes to stdout. Reading a
    // MedMentions-size corpus and a UMLS-size KB takes minutes: those stages are named too.
    ConsoleProgress progress;
    progress.report("Loading the knowledge base and reading the corpora", 0.0);
    const CorpusSetup setup = CorpusSetup::read(args.data);
    progress.report("Loading the knowledge base and reading the corpora", 1.0);
#if LINKSCOPE_HAVE_TORCH
    std::optional<encoder::TextEncoder> loaded;
    if (args.method != "sparse") loaded.emplace(loadEncoder(args.encoder));
    const encoder::TextEncoder* encoder = loaded ? &*loaded : nullptr;
#else
    const encoder::TextEncoder* encoder = nullptr;
#endif

    const Run run = runOnce(args, setup, encoder, true, progress);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    eval::ReportOptions reportOptions;
    reportOptions.extra = {{"method", args.method},
                           {"ranker", rankerDescription(args, run)},
                           {"split", args.data.split},
                           {"knowledge_base", args.data.kb.string()},
                           {"dictionary_entries", std::to_string(run.data.dictionary.size())},
                           {"index_seconds", std::to_string(run.indexSeconds)}};
    if (args.method != "dense")
        reportOptions.extra.emplace("index",
                                    run.indexLoaded ? "loaded from " + args.sparseIndex.file.string() : "built");
    if (args.method != "sparse") {
        reportOptions.extra.emplace("model", args.encoder.model.string());
        reportOptions.extra.emplace(
            "dense_index",
            (run.denseIndexLoaded ? "loaded from " + args.dense.file.string() + " " : std::string("built ")) + "(" +
                run.denseKind + ")");
    }
    if (args.method == "hybrid") {
        std::ostringstream weight;
        weight << args.sparseWeight;
        reportOptions.extra.emplace("sparse_weight", weight.str());
    }
    if (!args.report.empty()) eval::writeJsonReport(args.report, run.result, reportOptions);
    if (!args.perMention.empty())
        eval::writePerMention(args.perMention, run.result, run.data.queries.queries, run.data.dictionary);

    nlohmann::json report = nlohmann::json::parse(eval::reportJson(run.result, reportOptions));
    // "seconds" is the whole command: reading, dictionary, index and ranking.
    report["seconds"] = seconds;
    report["evaluate_seconds"] = run.result.seconds;

    std::string comparisonText;
    if (args.comparePreprocessing) {
        // Without preprocessing the dictionary differs (its training mentions are not expanded
        // or split), so the saved indexes, made for the preprocessed one, are not used.
        EvalArguments plainArgs = args;
        plainArgs.sparseIndex.file.clear();
        plainArgs.dense.file.clear();
        const Run plain = runOnce(plainArgs, setup, encoder, false, progress);
        const eval::RunComparison comparison = eval::compareRuns(run.result, plain.result);
        report["comparison_without_preprocessing"] = nlohmann::json::parse(eval::comparisonJson(comparison));
        comparisonText = eval::formatComparison(comparison, "preprocessed", "raw");
    }

    progress.finish();
    if (args.json) {
        std::cout << report.dump(2) << '\n';
    } else {
        std::cout << eval::formatTable(run.result);
        std::cout << "dictionary entries: " << run.data.dictionary.size() << ", indexes "
                  << (run.indexLoaded || run.denseIndexLoaded ? "loaded" : "built") << " in " << run.indexSeconds
                  << " s, total " << seconds << " s\n";
        if (!comparisonText.empty()) std::cout << '\n' << comparisonText;
    }
}

}  // namespace

void addEvalCommand(CLI::App& app) {
    auto args = std::make_shared<EvalArguments>();
    CLI::App* cmd =
        app.add_subcommand("eval", "Evaluate a linker with BioSyn's protocol (Acc@k, strict, seen/unseen, per type)");
    args->data.addOptions(*cmd);
    cmd->add_option(
           "--method", args->method,
           "Linker: sparse (TF-IDF), dense (encoder + vector index) or hybrid (BioSyn: dense + lambda x sparse)")
        ->check(CLI::IsMember({"sparse", "dense", "hybrid"}));
    cmd->add_option(
           "--sparse", args->sparse,
           "Sparse model: biosyn (char 1-2 grams) or le-nguyen (char 2-5 grams + words without stop words, merged)")
        ->check(CLI::IsMember({"biosyn", "le-nguyen"}));
    args->encoder.addOptions(*cmd, false, 25);
    args->dense.addOptions(*cmd);
    args->augment.addOptions(*cmd);
    cmd->add_option(
           "--sparse-weight", args->sparseWeight,
           "Hybrid: BioSyn's lambda, the weight of the sparse score (learned in training; 2 to 4 in the paper)")
        ->capture_default_str();
    args->sparseIndex.addOptions(*cmd);
    cmd->add_option("--k", args->k, "Ranking depth (at least 64, at most 100000)");
    cmd->add_flag("--compare-preprocessing", args->comparePreprocessing,
                  "Also run without abbreviation expansion and composite splitting and compare (McNemar, bootstrap)");
    cmd->add_option("--report", args->report, "Write the JSON report to this file");
    cmd->add_option("--per-mention", args->perMention, "Write the per-mention predictions to this file");
    cmd->add_option("--threads", args->threads, "Search threads (0: one per core)");
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->add_option("--run", args->run,
                    "A training run (linkscope-cli train --out): its best model, linked as its method does "
                    "(--model RUN_DIR does the same; with --method dense or hybrid, its model as a plain encoder)")
        ->check(CLI::ExistingDirectory);
    cmd->callback([args, cmd] {
        // Before anything is read: the depth sizes the metrics and the rankers' heaps.
        if (args->k > eval::kMaximumDepth)
            throw Error("eval: --k " + std::to_string(args->k) + " is more than the maximum ranking depth of " +
                        std::to_string(eval::kMaximumDepth));
        args->linkerOptions.clear();
        for (const char* name : {"--method", "--sparse", "--sparse-weight", "--index", "--dense-index", "--dense-kind",
                                 "--compare-preprocessing", "--pooling", "--max-length", "--normalize"})
            if (cmd->get_option(name)->count() > 0) args->linkerOptions.emplace_back(name);
#if !LINKSCOPE_HAVE_TORCH
        // A model, a training run or an encoder's method: linkscope-cli-dense evaluates it.
        // The message names the option that asked for a model.
        if (!args->run.empty()) handOverToDenseEngine("linkscope-cli eval --run");
        if (!args->encoder.model.empty()) handOverToDenseEngine("linkscope-cli eval --model");
        if (args->method != "sparse") handOverToDenseEngine("linkscope-cli eval --method " + args->method);
#endif
        runEval(*args);
    });
}

}  // namespace linkscope::cli
