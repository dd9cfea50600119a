// linkscope-cli eval: BioSyn's evaluation protocol with a sparse (TF-IDF) linker.
//
//   linkscope-cli eval --train FILE... --dev FILE... [--test FILE...] --kb FILE --split dev|test
//                      --method sparse [--types T...] [--spelling FILE] [--json] ...
//
// Dictionary: the KB's names plus the training mentions (and the dev mentions when the test split
// is evaluated), as BioSyn builds train/dev/test_dictionary.txt. Queries: the evaluated split's
// mentions after BioSyn's preprocessing (eval/queries.h).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "commands.h"
#include "corpus/pubtator_reader.h"
#include "eval/compare.h"
#include "eval/dictionary.h"
#include "eval/evaluate.h"
#include "eval/homonym_affected.h"
#include "eval/queries.h"
#include "eval/report.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"
#include "retrieval/candidate_merge.h"
#include "retrieval/sparse_index.h"
#include "retrieval/sparse_index_io.h"
#include "retrieval/tfidf_settings.h"
#include "text/spelling_map.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct EvalArguments {
    std::vector<std::filesystem::path> train;
    std::vector<std::filesystem::path> dev;
    std::vector<std::filesystem::path> test;
    std::filesystem::path kb;
    std::string kbFormat = "auto";
    std::filesystem::path spelling;
    std::string split = "test";
    std::string method = "sparse";
    std::string sparse = "biosyn";
    std::vector<std::string> types;
    std::size_t k = 64;
    bool homonymExpansion = false;
    bool noAbbreviations = false;
    bool noComposites = false;
    bool comparePreprocessing = false;
    std::filesystem::path index;
    std::filesystem::path report;
    std::filesystem::path perMention;
    unsigned threads = 0;
    bool json = false;
};

Corpus readCorpus(const std::vector<std::filesystem::path>& files) {
    return readPubTator(std::span<const std::filesystem::path>(files.data(), files.size()));
}

struct Setup {
    std::unique_ptr<kb::KnowledgeBase> kb;
    std::shared_ptr<const text::SpellingMap> spelling;
    Corpus train;
    Corpus dev;
    Corpus evaluated;
};

eval::QueryOptions queryOptions(const EvalArguments& args, const Setup& setup, bool preprocess) {
    eval::QueryOptions options;
    options.types = args.types;
    options.expandAbbreviations = preprocess && !args.noAbbreviations;
    options.splitComposites = preprocess && !args.noComposites;
    options.normalizer = eval::bioSynQueryNormalizer(setup.spelling);
    return options;
}

struct Run {
    eval::EvalResult result;
    eval::QuerySet queries;
    retrieval::NameDictionary dictionary;
    double indexSeconds = 0.0;
    bool indexLoaded = false;
};

// One complete evaluation: dictionary, index, queries, ranking.
Run runOnce(const EvalArguments& args, const Setup& setup, bool preprocess) {
    const eval::QueryOptions options = queryOptions(args, setup, preprocess);

    // The dictionary adds the training mentions (plus dev for a test evaluation), preprocessed
    // like the queries; BioSyn's train/dev/test dictionaries are built the same way.
    eval::DictionaryOptions dictionaryOptions;
    dictionaryOptions.homonymExpansion = args.homonymExpansion;
    eval::EvalDictionaryBuilder builder(dictionaryOptions);
    builder.addKnowledgeBase(*setup.kb);
    // The training mentions get the same type filter as the evaluated ones: BioSyn's
    // BC5CDR-Disease dictionary holds the Disease training mentions only.
    const eval::QuerySet trainQueries = eval::buildQueries(setup.train, *setup.kb, options);
    builder.addMentions(trainQueries.queries);
    if (args.split == "test") builder.addMentions(eval::buildQueries(setup.dev, *setup.kb, options).queries);
    Run run;
    run.dictionary = builder.build().entries;
    run.queries = eval::buildQueries(setup.evaluated, *setup.kb, options);
    eval::markHomonymAffected(run.queries.queries, *setup.kb);

    eval::EvalOptions evalOptions;
    evalOptions.k = std::max<std::size_t>(args.k, eval::kMinimumDepth);
    evalOptions.trainingIds = eval::goldIdSet(trainQueries.queries);
    const unsigned threads = args.threads;

    if (args.sparse == "le-nguyen") {
        // Le & Nguyen's candidate generation: character 2-5 grams and, separately, word unigrams
        // without stop words, the two lists merged without duplicates (interleaved, since the
        // scores of the two models are not comparable).
        const auto indexStart = Clock::now();
        const auto chars = retrieval::SparseIndex::build(run.dictionary, retrieval::TfidfSettings::leNguyenChars());
        const auto words = retrieval::SparseIndex::build(run.dictionary, retrieval::TfidfSettings::leNguyenWords());
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
        run.result = eval::evaluate(run.queries, run.dictionary, rank, evalOptions);
        return run;
    }

    const auto settings = retrieval::TfidfSettings::bioSyn();
    const auto indexStart = Clock::now();
    retrieval::SparseIndex index;
    if (!args.index.empty() && std::filesystem::exists(args.index)) {
        index = retrieval::loadSparseIndex(args.index, run.dictionary, settings);
        run.indexLoaded = true;
    } else {
        index = retrieval::SparseIndex::build(run.dictionary, settings);
        if (!args.index.empty()) retrieval::saveSparseIndex(index, args.index);
    }
    run.indexSeconds = std::chrono::duration<double>(Clock::now() - indexStart).count();
    const eval::RankFn rank = [&index, threads](std::span<const std::string> queries, std::size_t k) {
        return index.search(queries, k, threads);
    };
    run.result = eval::evaluate(run.queries, run.dictionary, rank, evalOptions);
    return run;
}

void runEval(const EvalArguments& args) {
    const auto start = Clock::now();
    if (args.sparse == "le-nguyen" && !args.index.empty())
        throw Error("--index saves the BioSyn index only; leave it out with --sparse le-nguyen");
    if (args.method != "sparse")
        throw Error("--method " + args.method + " is not available yet: the dense and hybrid methods come with the encoders");
    if (args.split == "test" && args.test.empty()) throw Error("--split test needs --test FILE");
    if (args.split == "dev" && args.dev.empty()) throw Error("--split dev needs --dev FILE");
    if (args.split == "test" && args.dev.empty())
        throw Error("--split test needs --dev FILE too: BioSyn's test dictionary adds the dev mentions");

    Setup setup;
    KbReference reference;
    reference.path = args.kb;
    reference.format = args.kbFormat == "auto" ? detectKbFormat(args.kb) : kbFormatFromName(args.kbFormat);
    std::vector<Diagnostic> diagnostics;
    setup.kb = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(reference, diagnostics));
    if (!args.spelling.empty()) setup.spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));
    setup.train = readCorpus(args.train);
    if (!args.dev.empty()) setup.dev = readCorpus(args.dev);
    setup.evaluated = args.split == "test" ? readCorpus(args.test) : readCorpus(args.dev);

    const Run run = runOnce(args, setup, true);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    eval::ReportOptions reportOptions;
    const std::string ranker = args.sparse == "le-nguyen"
                                   ? retrieval::TfidfSettings::leNguyenChars().describe() + " + " +
                                         retrieval::TfidfSettings::leNguyenWords().describe() + ", merged"
                                   : retrieval::TfidfSettings::bioSyn().describe();
    reportOptions.extra = {{"method", "sparse"},
                           {"ranker", ranker},
                           {"split", args.split},
                           {"knowledge_base", args.kb.string()},
                           {"dictionary_entries", std::to_string(run.dictionary.size())},
                           {"index", run.indexLoaded ? "loaded from " + args.index.string() : "built"},
                           {"index_seconds", std::to_string(run.indexSeconds)}};
    if (!args.report.empty()) eval::writeJsonReport(args.report, run.result, reportOptions);
    if (!args.perMention.empty()) eval::writePerMention(args.perMention, run.result, run.queries.queries, run.dictionary);

    nlohmann::json report = nlohmann::json::parse(eval::reportJson(run.result, reportOptions));
    // "seconds" is the whole command: reading, dictionary, index and ranking.
    report["seconds"] = seconds;
    report["evaluate_seconds"] = run.result.seconds;

    std::string comparisonText;
    if (args.comparePreprocessing) {
        const Run plain = runOnce(args, setup, false);
        const eval::RunComparison comparison = eval::compareRuns(run.result, plain.result);
        report["comparison_without_preprocessing"] = nlohmann::json::parse(eval::comparisonJson(comparison));
        comparisonText = eval::formatComparison(comparison, "preprocessed", "raw");
    }

    if (args.json) {
        std::cout << report.dump(2) << '\n';
    } else {
        std::cout << eval::formatTable(run.result);
        std::cout << "dictionary entries: " << run.dictionary.size() << ", index "
                  << (run.indexLoaded ? "loaded" : "built") << " in " << run.indexSeconds << " s, total " << seconds << " s\n";
        if (!comparisonText.empty()) std::cout << '\n' << comparisonText;
    }
}

}  // namespace

void addEvalCommand(CLI::App& app) {
    auto args = std::make_shared<EvalArguments>();
    CLI::App* cmd = app.add_subcommand("eval", "Evaluate a linker with BioSyn's protocol (Acc@k, strict, seen/unseen, per type)");
    cmd->add_option("--train", args->train, "Training corpus (PubTator); its mentions join the dictionary")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--dev", args->dev, "Development corpus")->check(CLI::ExistingFile);
    cmd->add_option("--test", args->test, "Test corpus")->check(CLI::ExistingFile);
    cmd->add_option("--kb", args->kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb-format", args->kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    cmd->add_option("--spelling", args->spelling, "Spelling map `misspelling||correction` (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--split", args->split, "Split to evaluate")->check(CLI::IsMember({"dev", "test"}));
    cmd->add_option("--method", args->method, "Linker")->check(CLI::IsMember({"sparse", "dense", "hybrid"}));
    cmd->add_option("--sparse", args->sparse,
                    "Sparse model: biosyn (char 1-2 grams) or le-nguyen (char 2-5 grams + words without stop words, merged)")
        ->check(CLI::IsMember({"biosyn", "le-nguyen"}));
    cmd->add_option("--types", args->types, "Only mentions of these types (e.g. Disease for BC5CDR-Disease)");
    cmd->add_option("--k", args->k, "Ranking depth (at least 64)");
    cmd->add_flag("--homonym-expansion", args->homonymExpansion, "Search BELHD's homonym-expanded KB names");
    cmd->add_flag("--no-abbreviations", args->noAbbreviations, "Do not expand abbreviations in mentions");
    cmd->add_flag("--no-composites", args->noComposites, "Do not split composite mentions");
    cmd->add_flag("--compare-preprocessing", args->comparePreprocessing,
                  "Also run without abbreviation expansion and composite splitting and compare (McNemar, bootstrap)");
    cmd->add_option("--index", args->index, "Sparse index file: loaded when it exists (and matches), else built and saved");
    cmd->add_option("--report", args->report, "Write the JSON report to this file");
    cmd->add_option("--per-mention", args->perMention, "Write the per-mention predictions to this file");
    cmd->add_option("--threads", args->threads, "Search threads (0: one per core)");
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->callback([args] { runEval(*args); });
}

}  // namespace linkscope::cli
