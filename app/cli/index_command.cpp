// linkscope-cli index: builds and saves the indexes `eval` searches, for the same dictionary
// (KB names + training mentions, + dev mentions for --split test), so that later evaluations
// and linking sessions load them instead of rebuilding:
//
//   linkscope-cli index --kb FILE --train FILE... [--dev FILE...] [--split dev|test]
//                       [--sparse-index FILE] [--model DIR --dense-index FILE [--dense-kind flat|hnsw|ivf-pq]]
//   linkscope-cli index --kb FILE [--dev FILE...] --sparse-index FILE ...
//                       without a training corpus: the dictionary `link --kb FILE` searches (the
//                       KB's names, and --dev's mentions when given), which link --index loads
//
// Each index is saved with a fingerprint of the dictionary (and, for the dense one, of the model
// and its pooling); `eval` refuses an index that does not fit what it is asked to search.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <memory>

#include "commands.h"
#include "console_progress.h"
#include "dense_engine.h"
#include "dictionary_setup.h"
#include "encoder_options.h"
#include "link_linker.h"
#if LINKSCOPE_HAVE_TORCH
#include "dense_dictionary.h"
#endif
#include "retrieval/dictionary_fingerprint.h"
#include "retrieval/sparse_index.h"
#include "retrieval/sparse_index_io.h"
#include "retrieval/tfidf_settings.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct IndexArguments {
    DictionaryArguments data;
    std::filesystem::path sparseIndex;
    EncoderArguments encoder;
    DenseIndexArguments dense;
    bool json = false;
};

void runIndex(const IndexArguments& args) {
    if (args.sparseIndex.empty() && args.dense.file.empty())
        throw Error("nothing to build: give --sparse-index FILE and/or --model DIR --dense-index FILE");
    if (!args.dense.file.empty() && args.encoder.model.empty())
        throw Error("--dense-index needs --model DIR: the encoder whose vectors it indexes");
#if !LINKSCOPE_HAVE_TORCH
    // The dense index encodes the dictionary: linkscope-cli-dense builds it, before anything is read.
    if (!args.dense.file.empty()) handOverToDenseEngine("linkscope-cli index --dense-index");
#endif
    // An existing file would be loaded by eval, not rebuilt: `index` always rebuilds. Without a
    // training corpus the dictionary is link's (the KB's names, link_linker.h), so that every
    // task of a sharded `link --index FILE` loads one prebuilt index.
    const bool forLink = args.data.train.empty() && args.data.corpus.empty();
    const DictionaryArguments dictionary = forLink ? linkData(args.data) : args.data;
    const CorpusSetup setup =
        forLink ? readLinkSetup(dictionary, args.data.corpusOptions) : CorpusSetup::read(args.data);
    const EvalData data = buildEvalData(dictionary, setup);

    // On stderr only (console_progress.h), and finished before anything goes to stdout.
    ConsoleProgress progress;
    nlohmann::json report;
    report["dictionary_entries"] = data.dictionary.size();
    report["dictionary"] = retrieval::fingerprintOf(data.dictionary).describe();
    if (!args.sparseIndex.empty()) {
        const auto start = Clock::now();
        // The build says nothing while it works: its start and end are reported.
        progress.report("Building sparse index", 0.0);
        const auto index = retrieval::SparseIndex::build(data.dictionary, retrieval::TfidfSettings::bioSyn());
        retrieval::saveSparseIndex(index, args.sparseIndex);
        progress.report("Building sparse index", 1.0);
        // Above SparseIndexOptions::approximateAbove names the index is approximate (rows and a
        // 3-gram stage); it is saved all the same, and loading maps it (sparse_index_io.h).
        report["sparse"] = {{"file", args.sparseIndex.string()},
                            {"terms", index.vectorizer().vocabularySize()},
                            {"approximate", index.approximate()},
                            {"bytes", std::filesystem::file_size(args.sparseIndex)},
                            {"seconds", secondsSince(start)}};
    }
#if LINKSCOPE_HAVE_TORCH
    if (!args.dense.file.empty()) {
        const auto start = Clock::now();
        const encoder::TextEncoder encoder = loadEncoder(args.encoder);
        // Not removed first: the old index stays until the new one is written whole.
        DenseIndexArguments rebuild = args.dense;
        rebuild.rebuild = true;
        const DenseDictionary dense = prepareDenseDictionary(encoder, data.dictionary, rebuild, progress);
        report["dense"] = {{"file", args.dense.file.string()},
                           {"kind", args.dense.kind},
                           {"model", args.encoder.model.string()},
                           {"device", encoder.deviceName()},
                           {"dimension", encoder.dimension()},
                           {"fingerprint", dense.index.fingerprint()},
                           {"bytes", std::filesystem::file_size(args.dense.file)},
                           {"seconds", secondsSince(start)}};
    }
#endif
    progress.finish();
    if (args.json) {
        std::cout << report.dump(2) << '\n';
        return;
    }
    std::cout << "dictionary: " << data.dictionary.size() << " entries\n";
    if (report.contains("sparse"))
        std::cout << "sparse index: " << args.sparseIndex.string() << " ("
                  << report["sparse"]["terms"].get<std::size_t>() << " terms, "
                  << report["sparse"]["seconds"].get<double>() << " s)\n";
    if (report.contains("dense"))
        std::cout << "dense index: " << args.dense.file.string() << " (" << args.dense.kind << ", "
                  << report["dense"]["dimension"].get<std::size_t>() << " dimensions, "
                  << report["dense"]["seconds"].get<double>() << " s)\n";
}

}  // namespace

void addIndexCommand(CLI::App& app) {
    auto args = std::make_shared<IndexArguments>();
    CLI::App* cmd =
        app.add_subcommand("index", "Build and save the sparse and dense indexes of an evaluation dictionary");
    args->data.addOptions(*cmd);
    cmd->add_option("--sparse-index", args->sparseIndex, "Write BioSyn's sparse (TF-IDF) index to this file");
    args->encoder.addOptions(*cmd, false, 25);
    args->dense.addOptions(*cmd);
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->callback([args] { runIndex(*args); });
}

}  // namespace linkscope::cli
