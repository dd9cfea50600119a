#include "dictionary_setup.h"

#include <CLI/CLI.hpp>

#include <map>

#include "eval/dictionary.h"
#include "eval/homonym_affected.h"
#include "project/loaded_project.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

constexpr std::string_view kSplitNames[] = {"train", "dev", "test"};

const std::vector<std::filesystem::path>& filesOf(const DictionaryArguments& args, std::string_view split) {
    return split == "train" ? args.train : split == "dev" ? args.dev : args.test;
}

// Whether the split is given, by files or by a PMID list.
bool hasSplit(const DictionaryArguments& args, std::string_view split) {
    if (!filesOf(args, split).empty()) return true;
    for (const auto& list : args.corpusOptions.lists(kSplitNames))
        if (list.split == split) return true;
    return false;
}

}  // namespace

void DictionaryArguments::addOptions(CLI::App& cmd) {
    cmd.add_option("--train", train,
                   "Training corpus (PubTator, BioC XML or brat folder); its mentions join the dictionary")
        ->check(CLI::ExistingPath);
    cmd.add_option("--dev", dev, "Development corpus")->check(CLI::ExistingPath);
    cmd.add_option("--test", test, "Test corpus")->check(CLI::ExistingPath);
    cmd.add_option("--corpus", corpus, "One corpus holding every split, with --split-pmids (MedMentions)")
        ->check(CLI::ExistingPath);
    corpusOptions.addOptions(cmd, "train, dev, test");
    cmd.add_option("--kb", kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd.add_option("--kb-format", kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    kbFilters.addOptions(cmd);
    cmd.add_option("--spelling", spelling, "Spelling map `misspelling||correction` (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd.add_option("--split", split, "Split to evaluate")->check(CLI::IsMember({"dev", "test"}));
    cmd.add_option(
        "--types", types,
        "Only mentions of these types (e.g. Disease for BC5CDR-Disease, T047, or st21pv for MedMentions' 21)");
    cmd.add_flag("--homonym-expansion", homonymExpansion, "Search BELHD's homonym-expanded KB names");
    cmd.add_flag("--no-abbreviations", noAbbreviations, "Do not expand abbreviations in mentions");
    cmd.add_flag("--no-composites", noComposites, "Do not split composite mentions");
}

void DictionaryArguments::validate() const {
    if (corpusOptions.splitByPmids() && corpus.empty())
        throw Error("--split-pmids needs --corpus FILE (the corpus the lists select from)");
    if (!corpus.empty() && !corpusOptions.splitByPmids())
        throw Error("--corpus needs --split-pmids NAME=FILE for each split (or give --train/--dev/--test files)");
    for (const auto& list : corpusOptions.lists(kSplitNames))
        if (!filesOf(*this, list.split).empty())
            throw Error("the " + list.split + " split is given twice: by --" + list.split + " and by --split-pmids " +
                        list.split + "=...");
    if (!hasSplit(*this, "train"))
        throw Error("no training corpus: give --train FILE or --corpus FILE --split-pmids train=LIST");
    if (split == "test" && !hasSplit(*this, "test"))
        throw Error("--split test needs --test FILE (or --split-pmids test=LIST)");
    if (split == "dev" && !hasSplit(*this, "dev"))
        throw Error("--split dev needs --dev FILE (or --split-pmids dev=LIST)");
    if (split == "test" && !hasSplit(*this, "dev"))
        throw Error(
            "--split test needs --dev FILE (or --split-pmids dev=LIST) too: BioSyn's test dictionary adds the dev "
            "mentions");
}

CorpusSetup CorpusSetup::read(const DictionaryArguments& args) {
    args.validate();
    CorpusSetup setup;
    const KbReference reference = kbReferenceOf(args.kb, args.kbFormat, args.kbFilters);
    std::vector<Diagnostic> diagnostics;
    setup.kb = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(reference, diagnostics));
    if (!args.spelling.empty())
        setup.spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));
    std::map<std::string, Corpus> listed;
    if (args.corpusOptions.splitByPmids()) listed = args.corpusOptions.readSplits(args.corpus, kSplitNames);
    const auto splitCorpus = [&](std::string_view name) {
        if (const auto it = listed.find(std::string(name)); it != listed.end()) return std::move(it->second);
        return args.corpusOptions.read(filesOf(args, name));
    };
    setup.train = splitCorpus("train");
    if (hasSplit(args, "dev")) setup.dev = splitCorpus("dev");
    if (args.split == "test") {
        setup.evaluated = splitCorpus("test");
    } else {
        setup.evaluated = setup.dev;
    }
    return setup;
}

eval::QueryOptions queryOptionsOf(const DictionaryArguments& args, const CorpusSetup& setup, bool preprocess) {
    eval::QueryOptions options;
    options.types = args.types;
    options.expandAbbreviations = preprocess && !args.noAbbreviations;
    options.splitComposites = preprocess && !args.noComposites;
    options.normalizer = eval::bioSynQueryNormalizer(setup.spelling);
    return options;
}

EvalData buildEvalData(const DictionaryArguments& args, const CorpusSetup& setup, bool preprocess) {
    const eval::QueryOptions options = queryOptionsOf(args, setup, preprocess);

    // The dictionary adds the training mentions (plus dev for a test evaluation), preprocessed
    // like the queries; BioSyn's train/dev/test dictionaries are built the same way.
    eval::DictionaryOptions dictionaryOptions;
    dictionaryOptions.homonymExpansion = args.homonymExpansion;
    eval::EvalDictionaryBuilder builder(dictionaryOptions);
    builder.addKnowledgeBase(*setup.kb);
    const std::size_t kbEntries = builder.size();
    // The training mentions get the same type filter as the evaluated ones: BioSyn's
    // BC5CDR-Disease dictionary holds the Disease training mentions only.
    const eval::QuerySet trainQueries = eval::buildQueries(setup.train, *setup.kb, options);
    builder.addMentions(trainQueries.queries);
    if (args.split == "test") builder.addMentions(eval::buildQueries(setup.dev, *setup.kb, options).queries);

    EvalData data;
    data.dictionary = builder.build().entries;
    data.queries = eval::buildQueries(setup.evaluated, *setup.kb, options);
    eval::markHomonymAffected(data.queries.queries, *setup.kb);
    data.trainingIds = eval::goldIdSet(trainQueries.queries);
    data.trainQueries = trainQueries.queries;
    data.kbEntries = kbEntries;
    return data;
}

}  // namespace linkscope::cli
