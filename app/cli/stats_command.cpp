// linkscope-cli stats --corpus INPUT... [--corpus-format F] [--split-pmids NAME=FILE...] [--kb FILE]
//                     [--kb-format F] [--mrsty FILE] [--kb-semantic-types T..] [--kb-sources S..]
//                     [--kb-languages L..] [--lenient] [--json]
//                     [--linking-difficulty [--types T..] [--spelling FILE] [--chemical-corpus INPUT..]
//                      [--outcomes PER_MENTION..]]
// One report per corpus input, or per split of the one --corpus with --split-pmids.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.h"
#include "corpus_arguments.h"
#include "eval/linking_difficulty.h"
#include "eval/mention_groups.h"
#include "eval/per_mention_reader.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "kb_arguments.h"
#include "linking_difficulty_report.h"
#include "project/loaded_project.h"
#include "stats_report.h"
#include "text/normalizer.h"
#include "text/spelling_map.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct StatsArguments {
    std::vector<std::filesystem::path> corpora;
    std::filesystem::path kb;
    std::string kbFormat = "auto";
    CorpusArguments corpusOptions;
    KbFilterArguments kbFilters;
    bool lenient = false;
    bool json = false;
    // The linking difficulty section (eval/linking_difficulty.h).
    bool difficulty = false;
    std::vector<std::string> types;
    std::filesystem::path spelling;
    std::vector<std::filesystem::path> chemicalCorpora;
    std::vector<std::filesystem::path> outcomes;
};

void validateDifficultyOptions(const StatsArguments& args, std::size_t corpora) {
    if (!args.difficulty) {
        if (!args.types.empty() || !args.spelling.empty() || !args.chemicalCorpora.empty() || !args.outcomes.empty())
            throw Error("--types, --spelling, --chemical-corpus and --outcomes belong to --linking-difficulty");
        return;
    }
    if (args.kb.empty()) throw Error("--linking-difficulty needs --kb: the classes compare mentions with its names");
    if (!args.outcomes.empty() && args.outcomes.size() != corpora)
        throw Error("--outcomes takes one per-mention file per corpus report, in their order: " +
                    std::to_string(args.outcomes.size()) + " for " + std::to_string(corpora) + " reports");
}

// The texts of the Chemical mentions of the --chemical-corpus inputs.
std::vector<std::string> chemicalNames(const StatsArguments& args) {
    std::vector<std::string> names;
    for (const auto& path : args.chemicalCorpora) {
        const Corpus corpus = args.corpusOptions.read(std::span(&path, 1), args.lenient);
        for (const Document& document : corpus.documents())
            for (const Mention& mention : document.mentions)
                if (eval::typeSelected(mention.type, std::vector<std::string>{"Chemical"}))
                    names.push_back(mention.text);
    }
    return names;
}

// What every corpus' linking difficulty section is computed with.
struct DifficultyInputs {
    std::shared_ptr<const text::Normalizer> queryNormalizer;
    std::vector<std::string> chemicals;
};

DifficultyInputs difficultyInputs(const StatsArguments& args) {
    DifficultyInputs inputs;
    std::shared_ptr<const text::SpellingMap> spelling;
    if (!args.spelling.empty())
        spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));
    inputs.queryNormalizer = eval::bioSynQueryNormalizer(spelling);
    inputs.chemicals = chemicalNames(args);
    return inputs;
}

nlohmann::json difficultySection(const StatsArguments& args, const Corpus& corpus, const kb::KnowledgeBase& kb,
                                 const DifficultyInputs& inputs, std::size_t index) {
    eval::DifficultyOptions options;
    options.queries.types = args.types;
    options.queries.normalizer = inputs.queryNormalizer;
    options.chemicalNames = inputs.chemicals;
    std::optional<eval::EvalResult> outcomes;
    if (!args.outcomes.empty()) {
        outcomes = eval::readPerMention(args.outcomes[index]);
        // The file's lines record whether each mention's concepts were seen in training.
        const std::vector<eval::MentionFacts> facts = eval::readMentionFacts(args.outcomes[index]);
        for (std::size_t i = 0; i < facts.size() && i < outcomes->mentions.size(); ++i)
            outcomes->mentions[i].seen = facts[i].seen;
        options.outcomes = &*outcomes;
    }
    const eval::LinkingDifficulty difficulty = eval::profileLinkingDifficulty(corpus, kb, options);
    if (outcomes && difficulty.outcomesUnmatched == difficulty.outcomes)
        throw Error(args.outcomes[index].string() + ": none of its mentions is a mention of corpus " + corpus.name +
                    " (give one per-mention file per corpus, in the order of --corpus)");
    nlohmann::json section = linkingDifficultyReport(difficulty);
    section["types"] = args.types;
    if (outcomes) section["outcomes_file"] = args.outcomes[index].string();
    return section;
}

void runStats(const StatsArguments& args) {
    nlohmann::json report;
    std::vector<std::string> diagnostics;

    std::unique_ptr<kb::KnowledgeBase> kb;
    if (!args.kb.empty()) {
        const KbReference reference = kbReferenceOf(args.kb, args.kbFormat, args.kbFilters);
        std::vector<Diagnostic> kbDiagnostics;
        kb = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(reference, kbDiagnostics));
        for (const auto& d : kbDiagnostics) diagnostics.push_back(d.toString());

        const kb::HomonymExpansion exact = kb::expandHomonyms(*kb);
        // Homonyms as the linker sees them: BioSyn's normalization (lower case, punctuation
        // removed), under which "Parkinson's Disease" and "Parkinson Disease" are one name.
        const text::Normalizer normalizer(text::bioSynOptions());
        kb::HomonymOptions normalizedOptions;
        normalizedOptions.normalizer = [&normalizer](std::string_view name) { return normalizer.normalize(name); };
        const kb::HomonymExpansion normalized = kb::expandHomonyms(*kb, normalizedOptions);
        report["kb"] = kbReport(*kb, exact.statistics(), normalized.statistics());
        report["kb"]["file"] = args.kb.string();
        report["kb"]["format"] = kbFormatName(reference.format);
    }

    std::vector<Corpus> corpora;
    if (args.corpusOptions.splitByPmids()) {
        if (args.corpora.size() != 1)
            throw Error("--split-pmids splits one --corpus; " + std::to_string(args.corpora.size()) + " were given");
        // One report per split, in the order of the lists; the notes go with the diagnostics.
        const CorpusReadOptions options = args.corpusOptions.readOptions(args.lenient);
        SplitsFromPmidLists read = readSplitsByPmidLists(args.corpora.front(), args.corpusOptions.lists(), options);
        for (const auto& note : read.notes) diagnostics.push_back(note.toString());
        for (auto& split : read.splits) corpora.push_back(std::move(split.corpus));
    } else {
        for (const auto& path : args.corpora)
            corpora.push_back(args.corpusOptions.read(std::span(&path, 1), args.lenient));
    }
    validateDifficultyOptions(args, corpora.size());
    const DifficultyInputs difficulty = args.difficulty ? difficultyInputs(args) : DifficultyInputs{};
    report["corpora"] = nlohmann::json::array();
    for (const Corpus& corpus : corpora) {
        report["corpora"].push_back(corpusReport(corpus, kb.get()));
        if (args.difficulty)
            report["corpora"].back()["linking_difficulty"] =
                difficultySection(args, corpus, *kb, difficulty, report["corpora"].size() - 1);
        for (const auto& d : corpus.diagnostics) diagnostics.push_back(d.toString());
    }
    report["total"] = totalReport(corpora, kb.get());
    report["documents"] = report["total"]["documents"];
    report["mentions"] = report["total"]["mentions"];
    report["diagnostics"] = diagnostics;

    // Everything is computed before anything is printed: a failure prints only the error.
    if (args.json)
        std::cout << report.dump(2) << '\n';
    else
        std::cout << renderStatsText(report);
}

}  // namespace

void addStatsCommand(CLI::App& app) {
    auto args = std::make_shared<StatsArguments>();
    CLI::App* stats = app.add_subcommand("stats", "Corpus and knowledge-base statistics, with BELHD's homonym table");
    stats
        ->add_option("--corpus", args->corpora,
                     "Corpus inputs (PubTator or BioC XML files, plain or .gz, or brat folders); one report each")
        ->required()
        ->check(CLI::ExistingPath);
    args->corpusOptions.addOptions(*stats, "any names; one report each");
    stats->add_option("--kb", args->kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV, or UMLS MRCONSO.RRF")
        ->check(CLI::ExistingFile);
    stats->add_option("--kb-format", args->kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    args->kbFilters.addOptions(*stats);
    stats->add_flag("--lenient", args->lenient,
                    "Report offset mismatches as diagnostics instead of failing (PubTator)");
    stats->add_flag("--json", args->json, "Print one JSON object");
    stats->add_flag("--linking-difficulty", args->difficulty,
                    "Per corpus: mention classes against the --kb names (exact name of the gold concept, of "
                    "another, none; composite, CUI-less, unknown ids) and properties (chemical-adjacent, length)");
    stats->add_option("--types", args->types, "Linking difficulty: only mentions of these types (e.g. Disease)");
    stats->add_option("--spelling", args->spelling, "Linking difficulty: the queries' spelling map, as given to eval")
        ->check(CLI::ExistingFile);
    stats
        ->add_option("--chemical-corpus", args->chemicalCorpora,
                     "Linking difficulty: corpora whose Chemical mentions' texts are the chemical names")
        ->check(CLI::ExistingPath);
    stats
        ->add_option("--outcomes", args->outcomes,
                     "Linking difficulty: one `eval --per-mention` file per corpus report, in order: Acc@1 "
                     "and errors per class")
        ->check(CLI::ExistingFile);
    stats->callback([args] { runStats(*args); });
}

}  // namespace linkscope::cli
