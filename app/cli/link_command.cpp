// linkscope-cli link: the same corpus with every mention's link written where its format keeps it.
//
//   linkscope-cli link --corpus FILE [--corpus-format auto|pubtator|bioc|brat] --kb FILE [--kb-format F]
//                      [--method sparse | --model DIR [--method dense|hybrid] | --run RUN [--knn|--sieve S|--linking L]]
//                      [--train FILE...] [--dev FILE...] --out PATH
//                      [--keep-gold] [--nil-below S] [--top K]
//
// Reads PubTator, BioC XML and brat today, and writes the format it read:
//   PubTator  the id column;
//   BioC XML  the "identifier" infon, with linkscope_score, linkscope_rank, linkscope_linker and
//             linkscope_fingerprint
//             (and linkscope_candidate_R / linkscope_score_R for the K best with --top K, and
//             linkscope_part_P for each part of a composite mention);
//   brat      the normalization (N) lines.
// Everything else is written as `export` writes the corpus (core/corpus/*_writer.h). The linker is
// built as `eval` builds the same one (link_linker.h): the KB's names, plus the mentions of --train
// (and --dev) when given, and the mentions made queries the same way.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "console_progress.h"
#include "corpus/bioc_writer.h"
#include "corpus/brat_writer.h"
#include "corpus/corpus_format.h"
#include "corpus/link_column.h"
#include "corpus/pubtator_writer.h"
#include "curation/corpus_linking.h"
#include "dictionary_setup.h"
#include "link_linker.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct LinkArguments {
    std::filesystem::path corpus;
    CorpusArguments corpusOptions;
    DictionaryArguments data;  ///< --kb, --kb-format, filters, --spelling, --train, --dev
    LinkerArguments linker;    ///< --method, --model, --run and their options, --threads
    std::filesystem::path out;
    bool keepGold = false;
    std::optional<double> nilBelow;
    std::size_t top = 1;
};

std::string formatScore(double score) {
    std::ostringstream out;
    out << score;
    return out.str();
}

std::string idsColumn(const std::vector<std::string>& ids) {
    return formatLinkColumn(ConceptIdList{ids, ids.size() > 1 ? IdJoin::Alternative : IdJoin::Single});
}

// The BioC infons of one mention's link.
BioCInfons infonsOf(const curation::MentionLink& link, const std::string& linker, const std::string& fingerprint,
                    bool keepGold) {
    BioCInfons infons;
    if (keepGold) infons.emplace_back("linkscope_identifier", curation::linkColumnFor(link));
    infons.emplace_back("linkscope_linker", linker);
    infons.emplace_back("linkscope_fingerprint", fingerprint);
    if (!link.unrankable.empty()) {
        infons.emplace_back("linkscope_unranked", link.unrankable);
        return infons;
    }
    if (!link.candidates.empty()) {
        infons.emplace_back("linkscope_score", formatScore(link.candidates.front().score));
        infons.emplace_back("linkscope_rank", link.nil ? "0" : "1");
    }
    // A mention split into parts (a composite): each part's link, since the joined one cannot
    // tell which part an id came from.
    if (!link.candidates.empty() && link.candidates.front().parts.size() > 1) {
        const auto& parts = link.candidates.front().parts;
        for (std::size_t p = 0; p < parts.size(); ++p)
            infons.emplace_back("linkscope_part_" + std::to_string(p + 1), idsColumn(parts[p]));
    }
    if (link.candidates.size() > 1)
        for (std::size_t r = 0; r < link.candidates.size(); ++r) {
            const std::string n = std::to_string(r + 1);
            infons.emplace_back("linkscope_candidate_" + n, idsColumn(link.candidates[r].ids));
            infons.emplace_back("linkscope_score_" + n, formatScore(link.candidates[r].score));
        }
    return infons;
}

void runLink(LinkArguments args) {
    const std::optional<CorpusFormat> named = corpusFormatFromName(args.corpusOptions.format);
    const CorpusFormat format = named ? *named : detectCorpusFormat(args.corpus);
    if (args.keepGold && format != CorpusFormat::BioC)
        throw Error("--keep-gold needs a BioC corpus (its prediction goes to the linkscope_identifier infon); " +
                    std::string(corpusFormatName(format)) + " has one id column per mention");
    if (args.top > 1 && format != CorpusFormat::BioC)
        std::cerr << "note: --top " << args.top << ": " << corpusFormatName(format)
                  << " keeps one link per mention; the best is written\n";

    ConsoleProgress progress;
    // Built once from the KB, the dictionary and the model; it ranks the corpus' mentions.
    const PreparedLinker prepared = prepareLinker(args.linker, args.data, args.corpusOptions, progress);
    progress.report("Reading the corpus", 0.0);
    const std::filesystem::path inputs[] = {args.corpus};
    const Corpus corpus = args.corpusOptions.read(inputs);
    progress.report("Reading the corpus", 1.0);
    const eval::QuerySet queries = prepared.queriesOf(corpus);

    curation::CorpusLinkOptions options;
    options.top = args.top;
    options.nilBelow = args.nilBelow;
    options.progress = progress.sink();
    if (prepared.partTextFor) options.partText = prepared.partTextFor(corpus);
    const curation::CorpusLinks links =
        curation::linkCorpus(corpus, queries, prepared.dictionary(), prepared.rank, options);
    const std::string& linker = prepared.description;
    const std::string fingerprint = prepared.fingerprint.text();

    progress.report("Writing", 0.0);
    std::string written = args.out.string();
    if (format == CorpusFormat::PubTator) {
        writePubTator(curation::withLinks(corpus, links), args.out);
    } else if (format == CorpusFormat::BioC) {
        BioCWriteOptions bioc;
        bioc.extraInfons = [&](std::size_t d, std::size_t m) {
            return infonsOf(links.links[d][m], linker, fingerprint, args.keepGold);
        };
        writeBioC(args.keepGold ? corpus : curation::withLinks(corpus, links), args.out, bioc);
    } else {
        const BratExportSummary summary = writeBrat(curation::withLinks(corpus, links), args.out);
        if (!summary.complete())
            written += " (brat cannot hold " + std::to_string(summary.relationsLeftOut) +
                       " document-level relations and " + std::to_string(summary.individualMentionListsLeftOut) +
                       " individual-mention lists: left out)";
    }
    progress.report("Writing", 1.0);
    progress.finish();

    for (const auto& mention : links.unrankable)
        std::cerr << "linkscope-cli link: document " << mention.document << ", characters " << mention.start << "-"
                  << mention.end << ": not ranked (" << mention.reason << "), written as NIL\n";
    std::cout << links.mentions << " mentions: " << links.linked << " linked, "
              << links.mentions - links.linked - links.nilBelow - links.unrankable.size() << " without a candidate, "
              << links.nilBelow << " NIL under --nil-below, " << links.unrankable.size() << " not ranked -> " << written
              << '\n';
    std::cout << "linker: " << linker << '\n' << "fingerprint: " << fingerprint << '\n';
}

}  // namespace

void addLinkCommand(CLI::App& app) {
    auto args = std::make_shared<LinkArguments>();
    CLI::App* cmd = app.add_subcommand(
        "link", "Link every mention of a corpus (PubTator, BioC XML or brat; written in the format read)");
    cmd->add_option("--corpus", args->corpus, "The corpus to link: PubTator, BioC XML or a brat folder")
        ->required()
        ->check(CLI::ExistingPath);
    cmd->add_option("--corpus-format", args->corpusOptions.format,
                    "Format of --corpus, --train and --dev (default: detected); the output has the same")
        ->check(CLI::IsMember({"auto", "pubtator", "bioc", "brat"}));
    cmd->add_option("--kb", args->data.kb, "Vocabulary: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb-format", args->data.kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    args->data.kbFilters.addOptions(*cmd);
    cmd->add_option("--spelling", args->data.spelling,
                    "Spelling map `misspelling||correction` (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--train", args->data.train, "Annotated corpus whose mentions join the dictionary, as in eval")
        ->check(CLI::ExistingPath);
    cmd->add_option("--dev", args->data.dev, "Annotated corpus whose mentions join the dictionary too")
        ->check(CLI::ExistingPath);
    args->linker.addOptions(*cmd);
    cmd->add_option("--out", args->out, "Output file (a folder for brat)")->required();
    cmd->add_flag("--keep-gold", args->keepGold,
                  "BioC: keep the corpus' identifier infon and write the link as linkscope_identifier");
    cmd->add_option("--nil-below", args->nilBelow, "Write NIL (-1) for a mention whose best score is below S");
    cmd->add_option("--top", args->top, "BioC: write the K best candidates with their scores as infons")
        ->check(CLI::Range(std::size_t{1}, std::size_t{64}))
        ->capture_default_str();
    cmd->callback([args, cmd] {
        args->linker.noteGiven(*cmd);
        runLink(*args);
    });
}

}  // namespace linkscope::cli
