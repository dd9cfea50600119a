// linkscope-cli stats --corpus INPUT... [--corpus-format F] [--split-pmids NAME=FILE...] [--kb FILE]
//                     [--kb-format F] [--mrsty FILE] [--kb-semantic-types T..] [--kb-sources S..]
//                     [--kb-languages L..] [--lenient] [--json]
// One report per corpus input, or per split of the one --corpus with --split-pmids.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.h"
#include "corpus_arguments.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "kb_arguments.h"
#include "project/loaded_project.h"
#include "stats_report.h"
#include "text/normalizer.h"
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
};

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
    report["corpora"] = nlohmann::json::array();
    for (const Corpus& corpus : corpora) {
        report["corpora"].push_back(corpusReport(corpus, kb.get()));
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
    stats->callback([args] { runStats(*args); });
}

}  // namespace linkscope::cli
