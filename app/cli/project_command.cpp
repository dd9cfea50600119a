// linkscope-cli project check FILE.linkscope|URI
// linkscope-cli project create --manifest M.json --store FILE.linkscope|URI
// linkscope-cli project copy FROM TO
// linkscope-cli project grant URI LOGIN --role curator|adjudicator|reviewer
// linkscope-cli project mode PROJECT [shared|blind [--overlap SHARE] [--seed N]]
// A project is a file or a `postgresql://` URI (core/project/project_store.h). `check` checks one
// in full, on demand: SQLite's integrity_check (every page, every index
// entry against its table row, the constraints), the manifest, the runs, and every decision row
// read and checked, its checksum included (core/project/project_store.h). Prints one line and
// exits 0 when the file is sound; otherwise the error names the file and what is wrong (the
// row, for a decision) and the exit status is 1. Reads only: the file is not upgraded to this
// build's schema version.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "project/project_copy.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "project_address.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

void runProjectCheck(const std::filesystem::path& file) {
    const auto store = project::ProjectStore::open(file, project::OpenCheck::Full);
    const project::IntegrityReport report = store.checkIntegrity();
    std::cout << store.file().string() << ": sound (schema version " << report.schemaVersion << ", " << report.bytes
              << (store.onServer() ? " bytes in the database; " : " bytes; SQLite's integrity check passed; ")
              << report.decisions << " decision(s) "
              << (report.checksummed ? "read and their checksums verified"
                                     : "read, without checksums in this version: they get them at the next write")
              << "; " << report.runs << " run(s), " << report.blobs << " blob(s))\n";
}

void runProjectCreate(const std::filesystem::path& manifestFile, const std::filesystem::path& store) {
    const ProjectManifest manifest = readProjectManifest(manifestFile);
    const auto created = project::ProjectStore::create(store, manifest);
    std::cout << created.file().string() << ": created the project \"" << manifest.name << "\" ("
              << manifest.corpora.size() << " corpus reference(s))\n";
}

void runProjectCopy(const std::filesystem::path& from, const std::filesystem::path& to) {
    const project::CopySummary summary = project::copyProject(from, to);
    std::cout << "copied " << from.string() << " to " << to.string() << ": " << summary.decisions
              << " decision(s) with their history, " << summary.runs << " run(s), " << summary.settings
              << " setting(s), " << summary.blobs << " blob(s)\n";
}

void runProjectGrant(const std::filesystem::path& address, const std::string& login, const std::string& roleName) {
    const auto role = project::parseTeamRole(roleName);
    if (!role) throw Error("--role: \"" + roleName + "\" is not a role (curator, adjudicator or reviewer)");
    auto store = project::ProjectStore::open(address);
    store.grant(login, *role);
    std::cout << store.file().string() << ": " << login << " is now a " << project::teamRoleName(*role) << "\n";
}

void runProjectMode(const std::filesystem::path& address, const std::string& modeName, double overlap,
                    std::uint64_t seed) {
    auto store = project::ProjectStore::open(address);
    if (!modeName.empty()) {
        const auto mode = project::parseTeamMode(modeName);
        if (!mode) throw Error("mode: \"" + modeName + "\" is not a mode (shared or blind)");
        store.setTeamMode({*mode, overlap, seed});
    }
    const project::TeamModeSettings settings = store.teamMode();
    std::cout << store.file().string() << ": " << project::teamModeName(settings.mode);
    if (settings.mode == project::TeamMode::Blind)
        std::cout << ", a share of " << settings.overlapShare << " of the documents given to two curators (seed "
                  << settings.overlapSeed << ")";
    std::cout << "\n";
}

}  // namespace

void addProjectCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "project", "Project tools: check, create, copy, grant, mode (a project is a file or a postgresql:// URI)");
    cmd->require_subcommand(1);
    auto file = std::make_shared<std::filesystem::path>();
    CLI::App* check = cmd->add_subcommand(
        "check", "Check a project in full (SQLite's integrity check for a file, every decision row's checksum)");
    check->add_option("file", *file, "The project file (.linkscope) or postgresql:// URI")->required();
    check->callback([file] { runProjectCheck(*file); });

    auto manifest = std::make_shared<std::filesystem::path>();
    auto store = std::make_shared<std::filesystem::path>();
    CLI::App* create = cmd->add_subcommand(
        "create", "Create a project from a manifest: a new file, or the tables in an empty PostgreSQL database");
    create->add_option("--manifest", *manifest, "Project manifest (JSON)")->required()->check(CLI::ExistingFile);
    create
        ->add_option("--store", *store,
                     "Where the project goes: a new file (.linkscope) or a postgresql:// URI (no password in it: "
                     "libpq reads ~/.pgpass, PGPASSFILE or a service file)")
        ->required();
    create->callback([manifest, store] { runProjectCreate(*manifest, *store); });

    auto from = std::make_shared<std::filesystem::path>();
    auto to = std::make_shared<std::filesystem::path>();
    CLI::App* copy = cmd->add_subcommand(
        "copy",
        "Copy a project (decisions with their history, runs, settings, kNN datastores) between files and "
        "PostgreSQL databases, either way");
    copy->add_option("from", *from, "The project to copy: a file or a postgresql:// URI")->required();
    copy->add_option("to", *to, "A new file, or a postgresql:// URI of an empty database")->required();
    copy->callback([from, to] { runProjectCopy(*from, *to); });

    auto project = std::make_shared<std::filesystem::path>();
    auto login = std::make_shared<std::string>();
    auto role = std::make_shared<std::string>();
    CLI::App* grant = cmd->add_subcommand(
        "grant",
        "Give a server login a role in a project on PostgreSQL: curator (own decisions only), adjudicator "
        "(anyone's), reviewer (reads only); the server enforces it");
    grant->add_option("project", *project, "The project's postgresql:// URI")->required();
    grant->add_option("login", *login, "The PostgreSQL login (created beforehand: CREATE ROLE name LOGIN)")->required();
    grant->add_option("--role", *role, "curator, adjudicator or reviewer")->required();
    grant->callback([project, login, role] { runProjectGrant(*project, *login, *role); });

    auto modeProject = std::make_shared<std::filesystem::path>();
    auto modeName = std::make_shared<std::string>();
    auto overlap = std::make_shared<double>(0.1);
    auto seed = std::make_shared<std::uint64_t>(0);
    CLI::App* mode = cmd->add_subcommand(
        "mode",
        "Show or set how a team works on the project: shared (everyone reads every decision) or blind (a curator "
        "reads only their own; a share of the documents goes to two curators, for kappa)");
    mode->add_option("project", *modeProject, "The project: a file or a postgresql:// URI")
        ->required()
        ->check(projectAddress());
    mode->add_option("mode", *modeName, "shared or blind (none: print the mode)");
    mode->add_option("--overlap", *overlap, "blind: the share of documents given to two curators (default 0.1)")
        ->check(CLI::Range(0.0, 1.0));
    mode->add_option("--seed", *seed, "blind: which documents those are (default 0)");
    mode->callback(
        [modeProject, modeName, overlap, seed] { runProjectMode(*modeProject, *modeName, *overlap, *seed); });
}

}  // namespace linkscope::cli
