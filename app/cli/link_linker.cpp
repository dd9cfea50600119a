#include "link_linker.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <utility>

#include "curation/corpus_linking.h"
#include "dense_engine.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"
#include "run_as_encoder.h"
#include "train/run_directory.h"
#include "util/error.h"
#if LINKSCOPE_HAVE_TORCH
#include "dense_dictionary.h"
#include "encoder_ranking.h"
#include "retrieval/datastore_fingerprint.h"
#include "run_eval.h"
#include "train/method_linker.h"
#endif

namespace linkscope::cli {

struct PreparedLinker::State {
    CorpusSetup setup;  ///< the sparse and --model linkers' (a run keeps its own)
    EvalData data;
    std::optional<PreparedSparseIndex> sparse;
#if LINKSCOPE_HAVE_TORCH
    std::optional<encoder::TextEncoder> encoder;
    std::unique_ptr<EncoderRanking> encoderRanking;
    std::unique_ptr<LoadedRun> run;
    std::unique_ptr<RunLinker> runLinker;
#endif
    const kb::KnowledgeBase* kb = nullptr;
    const retrieval::NameDictionary* dictionary = nullptr;
};

namespace {

// The options that choose a linker other than a run's own.
constexpr const char* kLinkerOptionNames[] = {
    "--method",      "--sparse-weight", "--index",   "--sparse-search", "--sparse-candidates",
    "--dense-index", "--dense-kind",    "--pooling", "--max-length",    "--normalize"};

void prepareSparse(const LinkerArguments& args, PreparedLinker& linker, PreparedLinker::State& state,
                   ConsoleProgress& progress) {
    state.sparse.emplace(prepareSparseIndex(args.sparse, state.data.dictionary, progress));
    const retrieval::SparseIndex* index = &state.sparse->index;
    const unsigned threads = args.threads;
    linker.rank = [index, threads](std::span<const std::string> texts, std::size_t k) {
        return index->search(texts, k, threads);
    };
    linker.description = "sparse " + args.sparse.describe(*index);
}

#if LINKSCOPE_HAVE_TORCH
void prepareEncoder(const LinkerArguments& args, const std::string& method, const EncoderArguments& encoderArgs,
                    PreparedLinker& linker, PreparedLinker::State& state, ConsoleProgress& progress) {
    progress.report("Loading the model", 0.0);
    state.encoder.emplace(loadEncoder(encoderArgs));
    progress.report("Loading the model", 1.0);
    // A BioSyn folder brings its learned lambda (sparse_weight.pt).
    const bool weightGiven =
        std::find(args.linkerOptions.begin(), args.linkerOptions.end(), "--sparse-weight") != args.linkerOptions.end();
    const float sparseWeight =
        method == "hybrid" ? hybridSparseWeight(encoderArgs.model, args.sparseWeight, weightGiven) : args.sparseWeight;
    state.encoderRanking = prepareEncoderRanking(method, *state.encoder, state.data.dictionary, args.dense, args.sparse,
                                                 sparseWeight, args.threads, progress);
    linker.rank = state.encoderRanking->rank;
    linker.description = method + " " + state.encoderRanking->describe(encoderArgs.model, *state.encoder);
    linker.fingerprint.model = encoderFingerprint(*state.encoder);
}

void prepareRun(const LinkerArguments& args, const std::filesystem::path& runFolder, const DictionaryArguments& data,
                const CorpusArguments& corpusOptions, PreparedLinker& linker, PreparedLinker::State& state,
                ConsoleProgress& progress) {
    progress.report("Loading the run and the knowledge base", 0.0);
    state.run = std::make_unique<LoadedRun>(loadRun(
        runFolder, data, args.encoder, [&](const DictionaryArguments& d) { return readLinkSetup(d, corpusOptions); }));
    progress.report("Loading the run and the knowledge base", 1.0);
    const LoadedRun& run = *state.run;
    // Checked before the names are encoded: a wrong option costs nothing.
    std::optional<curation::AugmentedOptions> linking;
    const double sieveThreshold = run.preset.triplet.sieveThreshold;
    if (!args.augment.linkings.empty()) {
        const auto linkings = args.augment.linkingOptions(run.evalData.kbEntries, sieveThreshold);
        if (linkings.size() != 1)
            throw Error("--linking: link writes one linker's links; give one item (eval --linking compares several)");
        linking = linkings.front();
    } else if (args.augment.active()) {
        linking = args.augment.options(run.evalData.kbEntries, sieveThreshold);
    }
    if (args.augment.active() && run.setup.train.documents().empty() && args.augment.project.empty() &&
        (args.augment.datastore.empty() || !std::filesystem::exists(args.augment.datastore)))
        throw Error(
            "--knn, --sieve and --linking search a datastore of training mentions: give --train FILE (or "
            "--datastore FILE, or --project FILE, holding one)");
    state.runLinker = prepareRunLinker(run, args.augment, linking, args.threads, progress);
    linker.rank = state.runLinker->rankFunction();
    const LoadedRun* loaded = &run;
    linker.partTextFor = [loaded](const Corpus& chunk) {
        // The context is cut to fit the preset's length by the model's own tokenizer, as eval cuts it.
        return train::mentionInputs(loaded->preset, chunk, train::tokenCounterOf(loaded->encoder->tokenizer()));
    };
    linker.description = "run " + runFolder.string() + ": " + runRankerDescription(run);
    if (linking) linker.description += ", linking " + AugmentArguments::describe(*linking);
    linker.fingerprint.model = encoderFingerprint(*run.encoder);
    if (state.runLinker->datastore)
        linker.fingerprint.datastore = retrieval::fingerprintOf(*state.runLinker->datastore).describe();
}
#endif

// A training run linked as its preset says: the options that choose another linker are refused,
// saying how to use them instead.
void refuseOtherLinkers(const LinkerArguments& args, const std::filesystem::path& run) {
    if (args.linkerOptions.empty()) return;
    std::string given;
    for (const auto& name : args.linkerOptions) given += (given.empty() ? "" : ", ") + name;
    throw Error(run.string() + " is a training run, linked as its preset says: leave out " + given +
                ", or add --method dense (or --method hybrid) to link its model as a plain encoder with them");
}

}  // namespace

// The KB and the corpora whose mentions join the dictionary, read in link's --corpus-format.
CorpusSetup readLinkSetup(const DictionaryArguments& data, const CorpusArguments& corpusOptions) {
    CorpusSetup setup;
    std::vector<Diagnostic> diagnostics;
    setup.kb = std::make_unique<kb::KnowledgeBase>(
        loadKnowledgeBase(kbReferenceOf(data.kb, data.kbFormat, data.kbFilters), diagnostics));
    if (!data.spelling.empty())
        setup.spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(data.spelling));
    if (!data.train.empty()) setup.train = corpusOptions.read(data.train);
    if (!data.dev.empty()) setup.dev = corpusOptions.read(data.dev);
    return setup;
}

DictionaryArguments linkData(const DictionaryArguments& data) {
    DictionaryArguments linked = data;
    linked.split = data.dev.empty() ? "dev" : "test";
    return linked;
}

void LinkerArguments::addOptions(CLI::App& cmd) {
    cmd.add_option("--method", method,
                   "Linker: sparse (BioSyn's TF-IDF), dense (--model: encoder + vector index) or hybrid (BioSyn: "
                   "dense + lambda x sparse); default: sparse, dense with --model, the run's own with --run")
        ->check(CLI::IsMember({"sparse", "dense", "hybrid"}));
    encoder.addOptions(cmd, false, 25);
    dense.addOptions(cmd);
    sparse.addOptions(cmd);
    cmd.add_option("--sparse-weight", sparseWeight,
                   "Hybrid: BioSyn's lambda, the weight of the sparse score (learned in training; 2 to 4 in the paper)")
        ->capture_default_str();
    cmd.add_option("--run", run,
                   "A training run (linkscope-cli train --out): its best model, linked as its method does, as eval "
                   "--run links (--model RUN_DIR does the same)")
        ->check(CLI::ExistingDirectory);
    augment.addOptions(cmd);
    cmd.add_option("--threads", threads, "Search threads (0: one per core)");
}

void LinkerArguments::noteGiven(const CLI::App& cmd) {
    linkerOptions.clear();
    for (const char* name : kLinkerOptionNames)
        if (cmd.get_option(name)->count() > 0) linkerOptions.emplace_back(name);
#if !LINKSCOPE_HAVE_TORCH
    // A model, a training run or an encoder's method: linkscope-cli-dense links with it.
    // The message names the option that asked for a model.
    if (!run.empty()) handOverToDenseEngine("linkscope-cli link --run");
    if (!encoder.model.empty()) handOverToDenseEngine("linkscope-cli link --model");
    if (!method.empty() && method != "sparse") handOverToDenseEngine("linkscope-cli link --method " + method);
#endif
}

std::string LinkerFingerprint::text() const {
    std::string out = "dictionary " + dictionary.describe();
    if (!model.empty()) out += "; model " + model;
    if (!datastore.empty()) out += "; datastore " + datastore;
    return out;
}

const kb::KnowledgeBase& PreparedLinker::kb() const { return *state->kb; }

const retrieval::NameDictionary& PreparedLinker::dictionary() const { return *state->dictionary; }

eval::QuerySet PreparedLinker::queriesOf(const Corpus& chunk) const {
    return curation::linkQueries(chunk, kb(), queryOptions);
}

// A run, a model or an encoder's method reaches here in linkscope-cli-dense alone: linkscope-cli
// hands such a command line over in noteGiven.
PreparedLinker prepareLinker(const LinkerArguments& args, const DictionaryArguments& given,
                             const CorpusArguments& corpusOptions, ConsoleProgress& progress) {
    if (!args.run.empty() && !args.encoder.model.empty()) throw Error("give --run RUN_DIR or --model DIR, not both");
    const bool modelIsRun = !args.encoder.model.empty() && train::isRunDirectory(args.encoder.model);
    const std::filesystem::path runFolder = modelIsRun ? args.encoder.model : args.run;
    const bool methodGiven = !args.method.empty();
    const DictionaryArguments data = linkData(given);

    auto state = std::make_shared<PreparedLinker::State>();
    PreparedLinker linker;
    if (!runFolder.empty() && !methodGiven) {
        refuseOtherLinkers(args, runFolder);
#if LINKSCOPE_HAVE_TORCH
        prepareRun(args, runFolder, data, corpusOptions, linker, *state, progress);
        state->kb = state->run->setup.kb.get();
        state->dictionary = &state->run->evalData.dictionary;
        linker.queryOptions = queryOptionsOf(state->run->data, state->run->setup);
#endif
    } else {
        const std::string method = !args.method.empty()                                ? args.method
                                   : !args.encoder.model.empty() || !runFolder.empty() ? "dense"
                                                                                       : "sparse";
        if (args.augment.active() || !args.augment.datastore.empty())
            throw Error(runFolder.empty()
                            ? "--knn, --sieve, --linking and --datastore link with a trained method's encoder: give "
                              "--run RUN_DIR"
                            : "--knn, --sieve, --linking and --datastore link as the run's method does: leave out "
                              "--method " +
                                  method);
        if (method == "sparse" && (!args.encoder.model.empty() || !runFolder.empty()))
            throw Error(
                "--method sparse links without an encoder: leave out --model (or --run) for the sparse linker "
                "alone");
        if (method != "sparse" && args.encoder.model.empty() && runFolder.empty())
            throw Error("--method " + method + " needs --model DIR (an encoder checkpoint) or --run RUN_DIR");
        if (method == "dense" && !args.sparse.file.empty())
            throw Error("--index is the sparse index; --method dense uses --dense-index");
        [[maybe_unused]] const EncoderArguments encoderArgs =
            runFolder.empty() ? args.encoder : runModelAsEncoder(args.encoder, runFolder, method);

        progress.report("Loading the knowledge base and reading the corpora", 0.0);
        state->setup = readLinkSetup(data, corpusOptions);
        progress.report("Loading the knowledge base and reading the corpora", 1.0);
        progress.report("Building the dictionary", 0.0);
        state->data = buildEvalData(data, state->setup);
        progress.report("Building the dictionary", 1.0);
        state->kb = state->setup.kb.get();
        state->dictionary = &state->data.dictionary;
        linker.queryOptions = queryOptionsOf(data, state->setup);
        if (method == "sparse") {
            prepareSparse(args, linker, *state, progress);
        } else {
#if LINKSCOPE_HAVE_TORCH
            prepareEncoder(args, method, encoderArgs, linker, *state, progress);
#endif
        }
    }
    linker.fingerprint.dictionary = retrieval::fingerprintOf(*state->dictionary);
    linker.state = std::move(state);
    return linker;
}

}  // namespace linkscope::cli
