#include "curation/project_export.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "corpus/bigbio_writer.h"
#include "corpus/bioc_json_writer.h"
#include "corpus/bioc_writer.h"
#include "corpus/brat_writer.h"
#include "corpus/pubtator_writer.h"
#include "curation/adjudication.h"
#include "curation/apply_decisions.h"
#include "curation/decision_log.h"
#include "project/project_store.h"
#include "project/referenced_corpora.h"
#include "util/atomic_folder.h"
#include "util/error.h"

namespace linkscope::curation {
namespace {

// An unknown --split is an error naming the splits there are.
void requireKnownSplits(const ProjectManifest& manifest, const std::vector<std::string>& splits) {
    std::set<std::string> known;
    for (const auto& corpus : manifest.corpora) known.insert(corpus.split);
    for (const auto& split : splits)
        if (!known.contains(split)) {
            std::string names;
            for (const auto& name : known) names += (names.empty() ? "" : ", ") + name;
            throw Error("the project has no split \"" + split + "\" (its splits: " + names + ")");
        }
}

// The corpora to export, in manifest order.
std::vector<CorpusReference> selectCorpora(const ProjectManifest& manifest, const std::vector<std::string>& splits) {
    requireKnownSplits(manifest, splits);
    std::vector<CorpusReference> selected;
    std::set<std::string> seen;
    for (const auto& corpus : manifest.corpora) {
        if (!splits.empty() && std::find(splits.begin(), splits.end(), corpus.split) == splits.end()) continue;
        // Decisions name their mention by split: two files of one split would be ambiguous.
        if (!seen.insert(corpus.split).second)
            throw Error(manifest.file.string() + ": the manifest names several corpus files for split \"" +
                        corpus.split + "\"; export them one split name per file");
        selected.push_back(corpus);
    }
    return selected;
}

// Every decision in effect must name a split of the project: one that names none would
// otherwise vanish from every export.
void checkDecisionSplits(const ProjectManifest& manifest, const std::vector<project::Decision>& done) {
    std::set<std::string> known;
    for (const auto& corpus : manifest.corpora) known.insert(corpus.split);
    std::size_t orphans = 0;
    std::string list;
    for (const auto& decision : done)
        if (!known.contains(decision.mention.split)) {
            ++orphans;
            list += "\n  decision " + std::to_string(decision.id) + " names split \"" + decision.mention.split + "\"";
        }
    if (orphans > 0)
        throw Error(std::to_string(orphans) + " decision(s) in effect name a split the project does not have:" + list);
}

// Where one corpus goes inside `base` (the output, or the folder staged in its place).
std::filesystem::path outputFor(const ExportOptions& options, const std::filesystem::path& base,
                                const CorpusReference& corpus, bool several) {
    if (!several) return base;
    // The readers refuse such names already; checked again here because this is where a name
    // becomes a path, and a manifest built in memory never passed a reader.
    if (const auto problem = splitNameProblem(corpus.split)) throw Error("cannot export: " + *problem);
    if (options.format == ExportFormat::PubTator) return base / (corpus.split + ".pubtator.txt");
    if (options.format == ExportFormat::BioC) return base / (corpus.split + ".bioc.xml");
    if (options.format == ExportFormat::BioCJson) return base / (corpus.split + ".bioc.json");
    if (options.format == ExportFormat::BigBio) return base / (corpus.split + ".bigbio.jsonl");
    return base / corpus.split;
}

ExportReport exportDecisions(const ExportInput& input, const ExportOptions& options) {
    if (!input.fromProject) throw Error("the decisions log needs a project file (a manifest holds no decisions)");
    requireKnownSplits(input.manifest, options.splits);
    std::vector<project::Decision> selected;
    for (const auto& decision : input.history)
        if (options.splits.empty() ||
            std::find(options.splits.begin(), options.splits.end(), decision.mention.split) != options.splits.end())
            selected.push_back(decision);
    std::size_t done = 0;
    for (const auto& decision : selected) done += decision.state == project::DecisionState::Done ? 1 : 0;
    writeDecisionLog(selected, options.out);
    ExportReport report;
    report.lines.push_back("decisions: " + std::to_string(selected.size()) + " written (" + std::to_string(done) +
                           " in effect, " + std::to_string(selected.size() - done) + " undone or discarded) -> " +
                           options.out.string());
    report.written.push_back(options.out);
    return report;
}

}  // namespace

std::string_view exportFormatName(ExportFormat format) noexcept {
    switch (format) {
        case ExportFormat::PubTator:
            return "pubtator";
        case ExportFormat::BioC:
            return "bioc";
        case ExportFormat::Brat:
            return "brat";
        case ExportFormat::Decisions:
            return "decisions";
        case ExportFormat::BioCJson:
            return "bioc-json";
        case ExportFormat::BigBio:
            return "bigbio";
    }
    return "pubtator";
}

std::optional<ExportFormat> parseExportFormat(std::string_view name) noexcept {
    for (const ExportFormat format : {ExportFormat::PubTator, ExportFormat::BioC, ExportFormat::Brat,
                                      ExportFormat::Decisions, ExportFormat::BioCJson, ExportFormat::BigBio})
        if (exportFormatName(format) == name) return format;
    return std::nullopt;
}

ExportInput exportInputOf(const project::ProjectStore& store) {
    ExportInput input;
    input.manifest = store.manifest();
    input.history = store.decisions();
    input.done = store.doneDecisions();
    input.fromProject = true;
    input.projectFile = store.file();
    return input;
}

ExportInput exportInputOf(ProjectManifest manifest) {
    ExportInput input;
    input.manifest = std::move(manifest);
    return input;
}

ExportReport exportProject(const ExportInput& input, const ExportOptions& options, const ProgressSink& progress) {
    // The project file in full (SQLite's integrity_check, every decision row's checksum) before
    // anything is written, on a connection of this thread: a damaged index would have answered
    // the reads of exportInputOf() with too few or repeated decisions.
    if (input.fromProject) (void)project::ProjectStore::open(input.projectFile).checkIntegrity();
    if (options.format == ExportFormat::Decisions) return exportDecisions(input, options);

    // A decision that does not fit the corpus is the project file's problem: name it.
    const auto inProject = [&](const Error& e) {
        return input.fromProject ? Error(input.projectFile.string() + ": " + e.what()) : e;
    };
    try {
        checkDecisionSplits(input.manifest, input.done);
    } catch (const Error& e) {
        throw inProject(e);
    }
    const auto corpora = selectCorpora(input.manifest, options.splits);
    const bool several = corpora.size() > 1;
    struct Prepared {
        CorpusReference reference;
        Corpus corpus;
        ApplySummary applied;
    };
    std::vector<Prepared> prepared;
    ExportReport report;
    // Read through the same path as the GUI's loader (any format, PMID-list splits); the lists
    // of a file are checked all together even when only some of its splits are exported.
    std::vector<Diagnostic> notes;
    std::size_t reads = 0;
    std::vector<SplitCorpus> read = readReferencedCorpora(
        input.manifest.corpora, notes,
        [&](const CorpusReference& reference) {
            return std::any_of(corpora.begin(), corpora.end(),
                               [&](const CorpusReference& c) { return c.split == reference.split; });
        },
        [&](const CorpusReference& reference) {
            progress.checkCancelled();
            progress("Reading " + reference.path.filename().string(),
                     0.8 * static_cast<double>(reads++) / static_cast<double>(corpora.size()));
        });
    for (const auto& diagnostic : notes) report.notes.push_back(diagnostic.toString());
    // Several curators (adjudication.h): an open disagreement exports the later-recorded link.
    // A link that does not parse is left to applyDecisions below, which lists every such decision.
    try {
        if (const std::size_t open = openDisagreements(input.done); open > 0)
            report.notes.push_back(std::to_string(open) + " disagreement(s) between curators not adjudicated: the " +
                                   "later-recorded curator's link is exported for each");
    } catch (const Error&) {
    }
    for (std::size_t i = 0; i < corpora.size(); ++i) {
        const auto& reference = corpora[i];
        progress.checkCancelled();
        Prepared item{reference, {}, {}};
        try {
            item.corpus = applyDecisions(read[i].corpus, reference.split, input.done, &item.applied);
        } catch (const Error& e) {
            throw inProject(e);
        }
        prepared.push_back(std::move(item));
    }
    progress.checkCancelled();
    // A folder (several corpora, or brat) is written into a staged copy and swapped in whole: a
    // kill or an error leaves it entirely as it was (util/atomic_folder.h).
    std::optional<AtomicFolder> folder;
    if (several || options.format == ExportFormat::Brat) folder.emplace(options.out);
    const std::filesystem::path base = folder ? folder->staging() : options.out;
    progress("Writing", 0.8);
    for (const auto& item : prepared) {
        const auto path = outputFor(options, options.out, item.reference, several);
        const auto staged = outputFor(options, base, item.reference, several);
        std::size_t mentions = 0;
        for (const auto& document : item.corpus.documents()) mentions += document.mentions.size();
        std::string line = item.reference.split + ": " + std::to_string(item.corpus.size()) + " documents, " +
                           std::to_string(mentions) + " mentions, " + std::to_string(item.applied.decisions) +
                           " decisions applied, " + std::to_string(item.applied.changedMentions) + " mentions changed";
        if (options.format == ExportFormat::PubTator) {
            writePubTator(item.corpus, staged);
        } else if (options.format == ExportFormat::BioC) {
            BioCWriteOptions bioc;
            bioc.date = options.date;
            writeBioC(item.corpus, staged, bioc);
        } else if (options.format == ExportFormat::BioCJson) {
            BioCWriteOptions bioc;
            bioc.date = options.date;
            writeBioCJson(item.corpus, staged, bioc);
        } else if (options.format == ExportFormat::BigBio) {
            const BigBioExportSummary summary = writeBigBio(item.corpus, staged);
            if (!summary.complete())
                line += "; BigBio cannot hold " + std::to_string(summary.relationsLeftOut) +
                        " document-level relations (no entity linked to each argument alone) and " +
                        std::to_string(summary.individualMentionListsLeftOut) + " individual-mention lists: left out";
        } else {
            const BratExportSummary summary = writeBratStaged(item.corpus, staged);
            if (!summary.complete())
                line += "; brat cannot hold " + std::to_string(summary.relationsLeftOut) +
                        " document-level relations and " + std::to_string(summary.individualMentionListsLeftOut) +
                        " individual-mention lists: left out";
        }
        report.lines.push_back(line + " -> " + path.string());
        report.written.push_back(path);
    }
    if (folder) folder->commit();
    progress("Exported", 1.0);
    return report;
}

}  // namespace linkscope::curation
