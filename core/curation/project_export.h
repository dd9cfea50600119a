#pragma once
// Exporting a project: the corrected corpora (the input with the curation decisions in effect
// applied) as PubTator, BioC XML, BioC JSON, brat standoff or BigBio JSON lines, or the decisions
// log (JSONL). Shared by
// `linkscope-cli export` and the GUI's File > Export.
//
// out: one corpus (one split selected, or a project with one corpus) is written to `out` itself
// (a folder for brat); several go into the folder `out` as SPLIT.pubtator.txt, SPLIT.bioc.xml,
// SPLIT.bioc.json, SPLIT.bigbio.jsonl or SPLIT/ (brat). Every corpus is read and every decision checked before anything is written, so
// a decision that names a missing mention leaves no half export behind. A folder (several
// corpora, or brat) is staged and swapped in whole (util/atomic_folder.h): a kill or a failed
// write leaves it entirely old or entirely new; files of it that the export does not write stay.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "project/curation_decision.h"
#include "project/project_manifest.h"
#include "util/progress.h"

namespace linkscope::project {
class ProjectStore;
}

namespace linkscope::curation {

enum class ExportFormat { PubTator, BioC, Brat, Decisions, BioCJson, BigBio };
/// "pubtator", "bioc", "brat", "decisions", "bioc-json", "bigbio".
std::string_view exportFormatName(ExportFormat format) noexcept;
std::optional<ExportFormat> parseExportFormat(std::string_view name) noexcept;

/// What is exported: the corpora of a manifest and the decisions (none for a bare manifest).
struct ExportInput {
    ProjectManifest manifest;
    std::vector<project::Decision> history;  ///< every decision, for the log
    std::vector<project::Decision> done;     ///< the decisions in effect, for the corpora
    bool fromProject = false;                ///< false: a manifest, which holds no decisions
    std::filesystem::path projectFile;       ///< the project file the decisions come from, for errors
};
ExportInput exportInputOf(const project::ProjectStore& store);
ExportInput exportInputOf(ProjectManifest manifest);

struct ExportOptions {
    ExportFormat format = ExportFormat::PubTator;
    std::filesystem::path out;
    std::vector<std::string> splits;  ///< empty: every split
    std::string date;                 ///< BioC <date> (yyyymmdd); empty: today, UTC
};

struct ExportReport {
    std::vector<std::string> lines;  ///< one per corpus written (or the log), for the user
    std::vector<std::string> notes;  ///< what the readers noticed (diagnostics)
    std::vector<std::filesystem::path> written;
};

/// A project's file is checked in full first (ProjectStore::checkIntegrity, on a connection of
/// its own, so that the GUI can export on a worker): a damaged file is refused, naming it, before
/// anything is written. Throws Error for a damaged project file, an unknown split, decisions naming a split the project lacks, a decision
/// that does not apply (curation/apply_decisions.h), the decisions log of a bare manifest, or a
/// file that cannot be written; Cancelled when asked between corpora.
ExportReport exportProject(const ExportInput& input, const ExportOptions& options, const ProgressSink& progress = {});

}  // namespace linkscope::curation
