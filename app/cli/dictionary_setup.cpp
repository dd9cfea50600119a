#include "dictionary_setup.h"

#include <CLI/CLI.hpp>

#include "corpus/pubtator_reader.h"
#include "eval/dictionary.h"
#include "eval/homonym_affected.h"
#include "project/loaded_project.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

Corpus readCorpus(const std::vector<std::filesystem::path>& files) {
    return readPubTator(std::span<const std::filesystem::path>(files.data(), files.size()));
}

}  // namespace

void DictionaryArguments::addOptions(CLI::App& cmd) {
    cmd.add_option("--train", train, "Training corpus (PubTator); its mentions join the dictionary")
        ->required()
        ->check(CLI::ExistingFile);
    cmd.add_option("--dev", dev, "Development corpus")->check(CLI::ExistingFile);
    cmd.add_option("--test", test, "Test corpus")->check(CLI::ExistingFile);
    cmd.add_option("--kb", kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd.add_option("--kb-format", kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    cmd.add_option("--spelling", spelling, "Spelling map `misspelling||correction` (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd.add_option("--split", split, "Split to evaluate")->check(CLI::IsMember({"dev", "test"}));
    cmd.add_option("--types", types, "Only mentions of these types (e.g. Disease for BC5CDR-Disease)");
    cmd.add_flag("--homonym-expansion", homonymExpansion, "Search BELHD's homonym-expanded KB names");
    cmd.add_flag("--no-abbreviations", noAbbreviations, "Do not expand abbreviations in mentions");
    cmd.add_flag("--no-composites", noComposites, "Do not split composite mentions");
}

void DictionaryArguments::validate() const {
    if (split == "test" && test.empty()) throw Error("--split test needs --test FILE");
    if (split == "dev" && dev.empty()) throw Error("--split dev needs --dev FILE");
    if (split == "test" && dev.empty())
        throw Error("--split test needs --dev FILE too: BioSyn's test dictionary adds the dev mentions");
}

CorpusSetup CorpusSetup::read(const DictionaryArguments& args) {
    args.validate();
    CorpusSetup setup;
    KbReference reference;
    reference.path = args.kb;
    reference.format = args.kbFormat == "auto" ? detectKbFormat(args.kb) : kbFormatFromName(args.kbFormat);
    std::vector<Diagnostic> diagnostics;
    setup.kb = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(reference, diagnostics));
    if (!args.spelling.empty())
        setup.spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));
    setup.train = readCorpus(args.train);
    if (!args.dev.empty()) setup.dev = readCorpus(args.dev);
    setup.evaluated = args.split == "test" ? readCorpus(args.test) : readCorpus(args.dev);
    return setup;
}

EvalData buildEvalData(const DictionaryArguments& args, const CorpusSetup& setup, bool preprocess) {
    eval::QueryOptions options;
    options.types = args.types;
    options.expandAbbreviations = preprocess && !args.noAbbreviations;
    options.splitComposites = preprocess && !args.noComposites;
    options.normalizer = eval::bioSynQueryNormalizer(setup.spelling);

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
