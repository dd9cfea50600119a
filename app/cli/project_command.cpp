// linkscope-cli project check FILE.linkscope
// Checks a project file in full, on demand: SQLite's integrity_check (every page, every index
// entry against its table row, the constraints), the manifest, the runs, and every decision row
// read and checked, its checksum included (core/project/project_store.h). Prints one line and
// exits 0 when the file is sound; otherwise the error names the file and what is wrong (the
// row, for a decision) and the exit status is 1. Reads only: the file is not upgraded to this
// build's schema version.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "project/project_store.h"

namespace linkscope::cli {
namespace {

void runProjectCheck(const std::filesystem::path& file) {
    const auto store = project::ProjectStore::open(file, project::OpenCheck::Full);
    const project::IntegrityReport report = store.checkIntegrity();
    std::cout << store.file().string() << ": sound (schema version " << report.schemaVersion << ", " << report.bytes
              << " bytes; SQLite's integrity check passed; " << report.decisions << " decision(s) "
              << (report.checksummed ? "read and their checksums verified"
                                     : "read, without checksums in this version: they get them at the next write")
              << "; " << report.runs << " run(s), " << report.blobs << " blob(s))\n";
}

}  // namespace

void addProjectCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("project", "Project file tools: check");
    cmd->require_subcommand(1);
    auto file = std::make_shared<std::filesystem::path>();
    CLI::App* check = cmd->add_subcommand(
        "check", "Check a project file in full (SQLite's integrity check, every decision row's checksum)");
    check->add_option("file", *file, "The project file (.linkscope)")->required();
    check->callback([file] { runProjectCheck(*file); });
}

}  // namespace linkscope::cli
