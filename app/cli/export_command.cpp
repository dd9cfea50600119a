// linkscope-cli export (--project FILE.linkscope | --manifest FILE.json)
//                      --format pubtator|bioc|bioc-json|brat|bigbio|decisions --out PATH
//                      [--split NAME]... [--date YYYYMMDD]
// The corrected corpora of a project (the input with the curation decisions in effect applied),
// or the decisions log. With --manifest there are no decisions: the export is the input.
//
// --out: one corpus (one split selected, or a manifest with one corpus) is written to PATH itself
// (a folder for brat); several go into the folder PATH as SPLIT.pubtator.txt, SPLIT.bioc.xml,
// SPLIT.bioc.json, SPLIT.bigbio.jsonl or SPLIT/ (brat). The decisions log is one JSONL file holding
// every decision with its state.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "curation/project_export.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "project_address.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct ExportArguments {
    std::filesystem::path project;
    std::filesystem::path manifest;
    std::string format;
    std::filesystem::path out;
    std::vector<std::string> splits;
    std::string date;
};

void runExport(const ExportArguments& args) {
    const auto format = curation::parseExportFormat(args.format);
    if (!format) throw Error("unknown export format \"" + args.format + "\"");
    const curation::ExportInput input = !args.project.empty()
                                            ? curation::exportInputOf(project::ProjectStore::open(args.project))
                                            : curation::exportInputOf(readProjectManifest(args.manifest));
    if (*format == curation::ExportFormat::Decisions && args.project.empty())
        throw Error("--format decisions needs --project (a manifest holds no decisions)");
    const curation::ExportReport report = curation::exportProject(input, {*format, args.out, args.splits, args.date});
    for (const auto& note : report.notes) std::cerr << "note: " << note << '\n';
    for (const auto& line : report.lines) std::cout << line << '\n';
}

}  // namespace

void addExportCommand(CLI::App& app) {
    auto args = std::make_shared<ExportArguments>();
    CLI::App* cmd = app.add_subcommand(
        "export",
        "Export the corrected corpora (PubTator, BioC XML, BioC JSON, brat standoff, BigBio JSON lines) or the "
        "decisions log (JSONL)");
    auto* project = cmd->add_option("--project", args->project,
                                    "Project (file .linkscope or postgresql:// URI): corpora and curation decisions")
                        ->check(projectAddress());
    auto* manifest =
        cmd->add_option("--manifest", args->manifest, "Project manifest (JSON) without decisions: reproduces the input")
            ->check(CLI::ExistingFile);
    project->excludes(manifest);
    manifest->excludes(project);
    cmd->add_option("--format", args->format, "pubtator, bioc, bioc-json, brat, bigbio or decisions")
        ->required()
        ->check(CLI::IsMember({"pubtator", "bioc", "bioc-json", "brat", "bigbio", "decisions"}));
    cmd->add_option("--out", args->out, "Output file, or folder (brat; several splits)")->required();
    cmd->add_option("--split", args->splits, "Export only this split (repeatable; default: all)");
    cmd->add_option("--date", args->date, "BioC <date> and BioC JSON \"date\" (yyyymmdd; default: today, UTC)");
    cmd->callback([args] {
        if (args->project.empty() && args->manifest.empty()) throw CLI::RequiredError("--project or --manifest");
        runExport(*args);
    });
}

}  // namespace linkscope::cli
