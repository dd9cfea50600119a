// linkscope-cli link: the same corpus with every mention's link written where its format keeps it.
//
//   linkscope-cli link --corpus FILE [--corpus-format auto|pubtator|bioc|bioc-json|bigbio|brat]
//                      --kb FILE [--kb-format F]
//                      [--method sparse | --model DIR [--method dense|hybrid] | --run RUN [--knn|--sieve S|--linking L]]
//                      [--train FILE...] [--dev FILE...] --out PATH
//                      [--keep-gold] [--nil-below S] [--top K]
//
// Reads PubTator, BioC XML, BioC JSON, BigBio JSON lines and brat, and writes the format it read:
//   PubTator  the id column;
//   BioC XML and BioC JSON
//             the "identifier" infon, with linkscope_score, linkscope_rank, linkscope_linker and
//             linkscope_fingerprint
//             (and linkscope_candidate_R / linkscope_score_R for the K best with --top K, and
//             linkscope_part_P for each part of a composite mention);
//   BigBio    "normalized" (and "linkscope_candidates" with --top K or --keep-gold);
//   brat      the normalization (N) lines.
// Shards (the command lines packaging/slurm and the tests use):
//
//   linkscope-cli link ... --shard I/N --out DIR     part I (0 .. N-1) of N, into DIR
//   linkscope-cli link ... --shard slurm --out DIR   I, N from SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN
//                                                    and SLURM_ARRAY_TASK_COUNT (or MAX - MIN + 1)
//   linkscope-cli merge-shards DIR --out FILE        the N parts as one `link` run writes them
//
// A shard writes DIR/shard-IIIII-of-NNNNN.{pubtator,bioc.xml,bioc.json,bigbio.jsonl}, then its manifest
// DIR/shard-IIIII-of-NNNNN.json (link_shards.h, shard_manifest.h), each atomically; a rerun skips a
// shard whose manifest is complete and matches (the input's bytes by their CRC-32, read once). Parts are cut at document starts (document_chunk_reader.h).
//
// The corpus is streamed: read, linked and written a chunk of whole documents at a time
// (corpus_chunk_source.h, --chunk-bytes), so that memory is the linker's plus one chunk; the
// queries are per document, so the links are those of the whole corpus linked at once.
// Everything else is written as `export` writes the corpus (core/corpus/*_writer.h). The linker is
// built as `eval` builds the same one (link_linker.h): the KB's names, plus the mentions of --train
// (and --dev) when given, and the mentions made queries the same way.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "console_progress.h"
#include "corpus/bioc_chunk_writer.h"
#include "corpus/bioc_writer.h"
#include "corpus/brat_writer.h"
#include "corpus/corpus_chunk_source.h"
#include "corpus/corpus_format.h"
#include "corpus/json_chunk_writers.h"
#include "corpus/link_column.h"
#include "corpus/pubtator_chunk_writer.h"
#include "curation/corpus_linking.h"
#include "dictionary_setup.h"
#include "link_linker.h"
#include "link_shards.h"
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
    std::string shard;                              ///< --shard I/N or slurm; empty: the whole input
    std::size_t chunkBytes = std::size_t{8} << 20;  ///< --chunk-bytes
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

// The BigBio "linkscope_candidates" of one mention's link: with --top K (K > 1) its K best, with
// --keep-gold the prediction beside the gold "normalized"; each id of a candidate is an entry with
// the candidate's score. A NIL prediction is the one entry "-1".
std::vector<BigBioCandidate> candidatesOf(const curation::MentionLink& link, std::size_t top, bool keepGold) {
    std::vector<BigBioCandidate> out;
    if (top <= 1 && !keepGold) return out;
    const double best = link.candidates.empty() ? 0.0 : link.candidates.front().score;
    if (link.nil) return {BigBioCandidate{"-1", best}};
    for (const curation::LinkCandidate& candidate : link.candidates)
        for (const std::string& id : candidate.ids) out.push_back(BigBioCandidate{id, candidate.score});
    return out;
}

// The counts a run prints and a shard manifest records.
struct LinkTotals {
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::size_t linked = 0;
    std::size_t nilBelow = 0;
    std::size_t unranked = 0;

    void add(const curation::CorpusLinks& links, std::size_t chunkDocuments) {
        documents += chunkDocuments;
        mentions += links.mentions;
        linked += links.linked;
        nilBelow += links.nilBelow;
        unranked += links.unrankable.size();
    }
    std::size_t withoutCandidate() const { return mentions - linked - nilBelow - unranked; }
    ShardCounts counts() const { return {documents, mentions, linked, nilBelow, withoutCandidate(), unranked}; }
};

// What brat could not hold, summed over the chunks.
struct BratLeftOut {
    std::size_t relations = 0;
    std::size_t individualMentionLists = 0;
    std::string note() const {
        if (relations == 0 && individualMentionLists == 0) return {};
        return " (brat cannot hold " + std::to_string(relations) + " document-level relations and " +
               std::to_string(individualMentionLists) + " individual-mention lists: left out)";
    }
};

// <source> of the BioC written: what writeBioC writes for the corpus read whole (its name is the
// file name without extensions).
std::string sourceNameOf(const std::filesystem::path& input) {
    auto name = input.filename();
    if (name.extension() == ".gz") name = name.stem();
    return "Linkscope export of " + name.stem().string();
}

// The linked chunks written in the format read, byte for byte as the whole corpus written at once.
class LinkedOutput {
public:
    using Infons = std::function<BioCInfons(const curation::MentionLink&)>;
    using Candidates = std::function<std::vector<BigBioCandidate>(const curation::MentionLink&)>;

    LinkedOutput(CorpusFormat format, const std::filesystem::path& target, const std::string& source)
        : format_(format), target_(target) {
        BioCWriteOptions options;
        options.source = source;
        if (format == CorpusFormat::PubTator)
            pubtator_.emplace(target);
        else if (format == CorpusFormat::BioC)
            bioc_.emplace(target, options);
        else if (format == CorpusFormat::BioCJson)
            biocJson_.emplace(target, options);
        else if (format == CorpusFormat::BigBio)
            bigbio_.emplace(target);
    }

    void write(const CorpusChunk& chunk, const curation::CorpusLinks& links, const Infons& infons,
               const Candidates& candidates, bool keepGold) {
        const Corpus& corpus = chunk.corpus;
        if (corpus.empty()) {
            if (pubtator_) pubtator_->write(corpus, chunk.atStart, chunk.atEnd);
            return;
        }
        const auto infonsOfMention = [&](std::size_t d, std::size_t m) { return infons(links.links[d][m]); };
        if (pubtator_) {
            pubtator_->write(curation::withLinks(corpus, links), chunk.atStart, chunk.atEnd);
        } else if (bioc_) {
            bioc_->write(keepGold ? corpus : curation::withLinks(corpus, links), infonsOfMention);
        } else if (biocJson_) {
            biocJson_->write(keepGold ? corpus : curation::withLinks(corpus, links), infonsOfMention);
        } else if (bigbio_) {
            bigbio_->write(keepGold ? corpus : curation::withLinks(corpus, links),
                           [&](std::size_t d, std::size_t m) { return candidates(links.links[d][m]); });
        } else {
            const BratExportSummary summary = writeBrat(curation::withLinks(corpus, links), target_);
            brat.relations += summary.relationsLeftOut;
            brat.individualMentionLists += summary.individualMentionListsLeftOut;
        }
    }

    void commit() {
        if (pubtator_) pubtator_->commit();
        if (bioc_) bioc_->commit();
        if (biocJson_) biocJson_->commit();
        if (bigbio_) bigbio_->commit();
    }
    std::uint64_t bytes() const {
        return pubtator_   ? pubtator_->bytes()
               : bioc_     ? bioc_->bytes()
               : biocJson_ ? biocJson_->bytes()
               : bigbio_   ? bigbio_->bytes()
                           : 0;
    }
    std::uint32_t crc32() const {
        return pubtator_   ? pubtator_->crc32()
               : bioc_     ? bioc_->crc32()
               : biocJson_ ? biocJson_->crc32()
               : bigbio_   ? bigbio_->crc32()
                           : 0;
    }
    std::size_t headerBytes() const { return bioc_ ? bioc_->headerBytes() : biocJson_ ? biocJson_->headerBytes() : 0; }
    std::size_t footerBytes() const { return bioc_ ? bioc_->footerBytes() : biocJson_ ? biocJson_->footerBytes() : 0; }
    /// What BigBio could not hold, summed over the chunks ("" when nothing).
    std::string leftOutNote() const {
        if (bigbio_) {
            const BigBioExportSummary& summary = bigbio_->summary();
            if (summary.complete()) return {};
            return " (BigBio cannot hold " + std::to_string(summary.relationsLeftOut) + " document relations and " +
                   std::to_string(summary.individualMentionListsLeftOut) + " individual-mention lists: left out)";
        }
        return brat.note();
    }

    BratLeftOut brat;

private:
    CorpusFormat format_;
    std::filesystem::path target_;
    std::optional<PubTatorChunkWriter> pubtator_;
    std::optional<BioCChunkWriter> bioc_;
    std::optional<BioCJsonChunkWriter> biocJson_;
    std::optional<BigBioChunkWriter> bigbio_;
};

// Whether the shard's manifest says it was linked from this input (its bytes: the CRC-32, not
// its time), with this linker's arguments and these settings, and its part is intact: then a rerun
// has nothing to do. `why` says why not when a manifest is there (damaged, or another input...).
bool alreadyLinked(const std::filesystem::path& folder, CorpusPart shard, const std::filesystem::path& part,
                   const InputIdentity& input, const nlohmann::json& settings, const nlohmann::json& linkerWords,
                   std::string& why) {
    std::optional<ShardManifest> manifest;
    try {
        manifest = readShardManifest(manifestPath(folder, shard));
    } catch (const Error& e) {
        why = e.what();
        return false;
    }
    if (!manifest) return false;
    const ShardManifest& m = *manifest;
    const std::string name = manifestPath(folder, shard).string();
    if (m.shard != shard.index || m.shards != shard.count)
        why = name + " is the manifest of shard " + std::to_string(m.shard) + " of " + std::to_string(m.shards);
    else if (m.input.path != input.path || m.input.size != input.size)
        why = name + " was linked from another input (path or size)";
    else if (m.input.crc32 != input.crc32)
        why = name + " was linked from other bytes of " + input.path + " (its CRC-32 differs: changed since)";
    else if (m.settings != settings)
        why = name + " was linked with other settings";
    else if (m.linkerArguments != linkerWords)
        why = name + " was linked with another linker (its arguments or the files they name differ)";
    else if (m.part.file != part.filename().string())
        why = name + " names another part";
    else
        partIntact(part, m.part.bytes, m.part.crc32, why);
    return why.empty();
}

void runLink(LinkArguments args) {
    const std::optional<CorpusFormat> named = corpusFormatFromName(args.corpusOptions.format);
    const CorpusFormat format = named ? *named : detectCorpusFormat(args.corpus);
    const bool keepsCandidates =
        format == CorpusFormat::BioC || format == CorpusFormat::BioCJson || format == CorpusFormat::BigBio;
    if (args.keepGold && !keepsCandidates)
        throw Error(
            "--keep-gold needs a BioC corpus, XML or JSON, or a BigBio one (the prediction is written "
            "beside the gold id); " +
            std::string(corpusFormatName(format)) + " has one id column per mention");
    if (args.top > 1 && !keepsCandidates)
        std::cerr << "note: --top " << args.top << ": " << corpusFormatName(format)
                  << " keeps one link per mention; the best is written\n";

    std::optional<CorpusPart> shard;
    std::filesystem::path target = args.out;
    nlohmann::json settings = {{"top", args.top},
                               {"nilBelow", args.nilBelow ? nlohmann::json(*args.nilBelow) : nlohmann::json()},
                               {"keepGold", args.keepGold},
                               {"format", std::string(corpusFormatName(format))}};
    const std::vector<std::string> command = commandLine();
    const nlohmann::json linkerWords =
        linkerArguments(command, {"--corpus", "--out", "--shard", "--threads", "--chunk-bytes"});
    InputIdentity input;
    if (!args.shard.empty()) {
        shard = parseShard(args.shard);
        target = partPath(args.out, *shard, format);  // refuses a format that is not split
        requireShardFileOrNothing(target);
        requireShardFileOrNothing(manifestPath(args.out, *shard));
        input = identifyInput(args.corpus);  // its bytes read once, for the CRC-32
        std::string why;
        if (alreadyLinked(args.out, *shard, target, input, settings, linkerWords, why)) {
            std::cout << "shard " << shard->index << " of " << shard->count << ": already linked ("
                      << manifestPath(args.out, *shard).string() << "), skipped\n";
            return;
        }
        if (!why.empty()) std::cerr << "note: " << why << "; linking the shard again\n";
        std::filesystem::create_directories(args.out);
    }

    ConsoleProgress progress;
    // Built once from the KB, the dictionary and the model, before the chunks are read: it ranks
    // every chunk's mentions.
    const PreparedLinker prepared = prepareLinker(args.linker, args.data, args.corpusOptions, progress);
    const std::string& linker = prepared.description;
    const std::string fingerprint = prepared.fingerprint.text();

    // The corpus a chunk of documents at a time: read, linked, written, dropped.
    CorpusChunkSource source(args.corpus, format, shard.value_or(CorpusPart{}), args.chunkBytes);
    LinkedOutput output(format, target, sourceNameOf(args.corpus));
    LinkTotals totals;
    CorpusChunk chunk;
    progress.report("Linking mentions", 0.0);
    double before = 0.0;
    while (source.next(chunk)) {
        printNotes(source.takeNotes());
        const double after = source.fraction();
        const Corpus& corpus = chunk.corpus;
        curation::CorpusLinks links;
        if (!corpus.empty()) {
            const eval::QuerySet queries = prepared.queriesOf(corpus);
            curation::CorpusLinkOptions options;
            options.top = args.top;
            options.nilBelow = args.nilBelow;
            options.progress.report = [&progress, before, after](std::string_view stage, double fraction) {
                progress.report(stage, before + (after - before) * fraction);
            };
            if (prepared.partTextFor) options.partText = prepared.partTextFor(corpus);
            links = curation::linkCorpus(corpus, queries, prepared.dictionary(), prepared.rank, options);
        }
        for (const auto& mention : links.unrankable)
            std::cerr << "linkscope-cli link: document " << mention.document << ", characters " << mention.start << "-"
                      << mention.end << ": not ranked (" << mention.reason << "), written as NIL\n";
        totals.add(links, corpus.size());
        output.write(
            chunk, links,
            [&](const curation::MentionLink& link) { return infonsOf(link, linker, fingerprint, args.keepGold); },
            [&](const curation::MentionLink& link) { return candidatesOf(link, args.top, args.keepGold); },
            args.keepGold);
        before = after;
    }
    printNotes(source.takeNotes());
    progress.report("Linking mentions", 1.0);
    if (shard && inputStampChanged(args.corpus, input))
        throw Error(args.corpus.string() + " changed while it was linked (its size or time); the shard is not written");
    output.commit();
    progress.finish();

    std::string written = target.string() + output.leftOutNote();
    std::cout << totals.mentions << " mentions: " << totals.linked << " linked, " << totals.withoutCandidate()
              << " without a candidate, " << totals.nilBelow << " NIL under --nil-below, " << totals.unranked
              << " not ranked -> " << written << '\n';
    std::cout << "linker: " << linker << '\n' << "fingerprint: " << fingerprint << '\n';
    if (!shard) return;

    ShardManifest manifest;
    manifest.shard = shard->index;
    manifest.shards = shard->count;
    manifest.input = input;
    manifest.rangeBytes = source.bytesRead();
    manifest.rangeCrc32 = source.crc32();
    manifest.corpusFormat = format;
    manifest.linkerDescription = linker;
    manifest.linkerFingerprint = fingerprint;
    manifest.linkerArguments = linkerWords;
    manifest.settings = settings;
    manifest.part = {target.filename().string(), output.bytes(),       output.crc32(),
                     output.headerBytes(),       output.footerBytes(), totals.documents};
    manifest.counts = totals.counts();
    manifest.command = command;
    writeManifest(manifestPath(args.out, *shard), manifest);
}

}  // namespace

void addLinkCommand(CLI::App& app) {
    auto args = std::make_shared<LinkArguments>();
    CLI::App* cmd = app.add_subcommand(
        "link",
        "Link every mention of a corpus (PubTator, BioC XML or JSON, BigBio or brat; written in the format read)");
    cmd->add_option("--corpus", args->corpus,
                    "The corpus to link: PubTator, BioC XML, BioC JSON, BigBio JSON lines or a brat folder")
        ->required()
        ->check(CLI::ExistingPath);
    cmd->add_option("--corpus-format", args->corpusOptions.format,
                    "Format of --corpus, --train and --dev (default: detected); the output has the same")
        ->check(CLI::IsMember({"auto", "pubtator", "bioc", "bioc-json", "bigbio", "brat"}));
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
                  "BioC: keep the corpus' identifier infon and write the link as linkscope_identifier; "
                  "BigBio: keep \"normalized\" and write the link as linkscope_candidates");
    cmd->add_option("--nil-below", args->nilBelow, "Write NIL (-1) for a mention whose best score is below S");
    cmd->add_option("--top", args->top,
                    "BioC: write the K best candidates with their scores as infons; BigBio: as linkscope_candidates")
        ->check(CLI::Range(std::size_t{1}, std::size_t{64}))
        ->capture_default_str();
    cmd->add_option("--shard", args->shard,
                    "I/N: link part I (0 to N-1) of N of --corpus, cut at documents, into the folder --out; "
                    "slurm: I and N from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (merge with merge-shards)");
    cmd->add_option("--chunk-bytes", args->chunkBytes,
                    "Documents are read, linked and written in chunks of about this many bytes of input")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34))
        ->capture_default_str();
    cmd->callback([args, cmd] {
        args->linker.noteGiven(*cmd);
        runLink(*args);
    });
}

}  // namespace linkscope::cli
