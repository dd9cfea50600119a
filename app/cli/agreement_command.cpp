// linkscope-cli agreement A.linkscope [B.linkscope] [--curator NAME]... [--no-types] [--json]
// linkscope-cli merge INTO.linkscope FROM.linkscope [--as NAME] [--unchecked]
//
// agreement: Cohen's kappa on the linked entity between two project files of the same manifest
// (each file's links in effect, as its export would write them), or between two curators
// (--curator, twice: the first for A, the second for B, or both within one merged file), over
// the mentions both decided: overall, per split and per mention type (read from the corpora;
// --no-types skips reading them), with the counts only one side decided. The rules are in
// core/curation/agreement.h and adjudication.h. A decision that names no mention of the corpora
// (another corpus version, or a damaged file) is refused, naming its file, unless --no-types.
// Both files are checked in full first (SQLite's integrity_check, each decision row's checksum),
// and a link that does not parse is refused naming its file.
//
// merge: records FROM's decisions in effect into INTO, curators and times kept, in one
// transaction after both files are checked in full (core/curation/curator_merge.h); the disagreements are then adjudicated in the GUI, and
// `export --project INTO` writes the adjudicated result.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "curation/adjudication.h"
#include "curation/agreement.h"
#include "curation/curator_merge.h"
#include "project/project_store.h"
#include "project/referenced_corpora.h"
#include "project_address.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct AgreementArguments {
    std::vector<std::filesystem::path> files;
    std::vector<std::string> curators;
    bool noTypes = false;
    bool json = false;
};

struct MergeArguments {
    std::filesystem::path into;
    std::filesystem::path from;
    std::string importAs;
    bool unchecked = false;  ///< do not read the corpora to check the decisions' mentions
};

// One side of the comparison: a file, optionally one curator of it.
struct Side {
    std::filesystem::path file;
    std::string curator;  // "" : every decision of the file (its result)
    std::vector<std::string> curators;
    curation::MentionCategories categories;
};

Side sideOf(const project::ProjectStore& store, const std::string& curator) {
    Side side;
    side.file = store.file();
    side.curator = curator;
    const auto done = store.doneDecisions();
    curation::requireReadableLinks(store.file(), done);  // names the file of the two that holds it
    side.curators = curation::curatorsOf(done);
    if (!curator.empty() && std::find(side.curators.begin(), side.curators.end(), curator) == side.curators.end()) {
        std::string names;
        for (const auto& name : side.curators) names += (names.empty() ? "" : ", ") + name;
        throw Error(store.file().string() + ": no decision in effect by curator \"" + curator +
                    "\" (its curators: " + (names.empty() ? std::string("none") : names) + ")");
    }
    side.categories = curation::categoriesInEffect(
        done, curator.empty() ? std::function<bool(const project::Decision&)>{}
                              : [curator](const project::Decision& d) { return d.curator == curator; });
    return side;
}

nlohmann::json optionalNumber(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json figuresJson(const curation::AgreementFigures& figures) {
    nlohmann::json json{{"both", figures.both},
                        {"agreed", figures.agreed},
                        {"only_a", figures.onlyA},
                        {"only_b", figures.onlyB},
                        {"observed", optionalNumber(figures.observed)},
                        {"expected", optionalNumber(figures.expected)},
                        {"kappa", optionalNumber(figures.kappa)}};
    if (!figures.kappa) json["kappa_undefined"] = figures.undefinedReason;
    return json;
}

nlohmann::json sideJson(const Side& side) {
    nlohmann::json json{{"file", side.file.string()}, {"curators", side.curators}, {"decided", side.categories.size()}};
    if (!side.curator.empty()) json["curator"] = side.curator;
    return json;
}

std::string number(const std::optional<double>& value) {
    if (!value) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", *value);
    return text;
}

void printRow(const std::string& scope, const curation::AgreementFigures& figures, std::vector<std::string>& notes) {
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %6zu %7zu %9s %9s %7s %7zu %7zu", scope.c_str(), figures.both,
                  figures.agreed, number(figures.observed).c_str(), number(figures.expected).c_str(),
                  number(figures.kappa).c_str(), figures.onlyA, figures.onlyB);
    std::cout << line << '\n';
    if (!figures.kappa) notes.push_back(scope + ": no kappa, " + figures.undefinedReason);
}

std::string describe(const Side& side) {
    std::string names;
    for (const auto& name : side.curators) names += (names.empty() ? "" : ", ") + name;
    return side.file.string() + (side.curator.empty()
                                     ? " (curators: " + (names.empty() ? std::string("none") : names) + ")"
                                     : " (curator " + side.curator + ")");
}

void runAgreement(const AgreementArguments& args) {
    if (args.files.size() == 1 && args.curators.size() != 2)
        throw Error("one project file: name the two curators to compare (--curator A --curator B)");
    if (args.curators.size() == 1 || args.curators.size() > 2)
        throw Error("--curator is given twice (A's, then B's) or not at all");
    // Each file in full (SQLite's integrity_check, every decision row's checksum): a damaged
    // index would hide decisions from the comparison. An error names its file.
    const auto a = project::ProjectStore::open(args.files[0]);
    (void)a.checkIntegrity();
    std::optional<project::ProjectStore> b;
    if (args.files.size() == 2) {
        b.emplace(project::ProjectStore::open(args.files[1]));
        (void)b->checkIntegrity();
        curation::requireSameManifest(a, *b);
    }
    const project::ProjectStore& storeB = b ? *b : a;
    const Side sideA = sideOf(a, args.curators.empty() ? std::string() : args.curators[0]);
    const Side sideB = sideOf(storeB, args.curators.empty() ? std::string() : args.curators[1]);

    std::vector<SplitCorpus> corpora;
    if (!args.noTypes) {
        std::vector<Diagnostic> ignored;  // the corpora are read for their mention types only
        corpora = readReferencedCorpora(a.manifest().corpora, ignored);
        // A decision on no mention of the corpora would count as decided by one side only.
        const auto exists = curation::mentionLookup(corpora);
        curation::requireDecidedMentionsExist(a, exists);
        if (b) curation::requireDecidedMentionsExist(*b, exists);
    }
    const auto report =
        curation::measureAgreement(sideA.categories, sideB.categories,
                                   args.noTypes ? curation::MentionTypeFn{} : curation::mentionTypesOf(corpora));
    if (args.json) {
        nlohmann::json json{{"a", sideJson(sideA)}, {"b", sideJson(sideB)}, {"overall", figuresJson(report.overall)}};
        json["splits"] = nlohmann::json::object();
        for (const auto& [name, figures] : report.perSplit) json["splits"][name] = figuresJson(figures);
        json["types"] = nlohmann::json::object();
        for (const auto& [name, figures] : report.perType) json["types"][name] = figuresJson(figures);
        std::cout << json.dump(2) << '\n';
        return;
    }
    std::cout << "A: " << describe(sideA) << '\n' << "B: " << describe(sideB) << '\n';
    std::cout << "Cohen's kappa on the linked entity, over the mentions both decided\n";
    char header[256];
    std::snprintf(header, sizeof header, "%-28s %6s %7s %9s %9s %7s %7s %7s", "scope", "both", "agreed", "observed",
                  "expected", "kappa", "only A", "only B");
    std::cout << header << '\n';
    std::vector<std::string> notes;
    printRow("overall", report.overall, notes);
    for (const auto& [name, figures] : report.perSplit) printRow("split " + name, figures, notes);
    for (const auto& [name, figures] : report.perType) printRow("type " + name, figures, notes);
    for (const auto& note : notes) std::cout << "note: " << note << '\n';
}

void runMerge(const MergeArguments& args) {
    auto into = project::ProjectStore::open(args.into);
    const auto from = project::ProjectStore::open(args.from);
    curation::MergeOptions options{args.importAs, {}};
    std::vector<SplitCorpus> corpora;
    if (!args.unchecked) {
        // The corpora of INTO, read for their mentions only: a decision of FROM that names none
        // refuses the merge before anything is recorded.
        std::vector<Diagnostic> ignored;
        corpora = readReferencedCorpora(into.manifest().corpora, ignored);
        options.mentionExists = curation::mentionLookup(corpora);
    }
    const auto summary = curation::mergeDecisions(into, from, options);
    std::string curators;
    for (const auto& name : summary.curators) curators += (curators.empty() ? "" : ", ") + name;
    std::cout << "merged " << summary.imported << " decision(s)" << (curators.empty() ? "" : " by " + curators)
              << " into " << into.file().string() << "; " << summary.alreadyPresent << " already there, "
              << summary.notInEffect << " undone or discarded not imported; " << summary.openDisagreements
              << " disagreement(s) to adjudicate\n";
}

}  // namespace

void addAgreementCommand(CLI::App& app) {
    auto args = std::make_shared<AgreementArguments>();
    CLI::App* cmd = app.add_subcommand("agreement",
                                       "Cohen's kappa between two curators' project files (or two curators of one "
                                       "file): overall, per split, per type");
    cmd->add_option("files", args->files, "A.linkscope [B.linkscope]: project files of the same manifest")
        ->required()
        ->expected(1, 2)
        ->check(projectAddress());
    cmd->add_option("--curator", args->curators, "Compare this curator's decisions (twice: A's, then B's)");
    cmd->add_flag("--no-types", args->noTypes,
                  "Do not read the corpora (no per-type figures, and the decisions' mentions are not checked)");
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->callback([args] { runAgreement(*args); });

    auto merge = std::make_shared<MergeArguments>();
    CLI::App* mergeCmd = app.add_subcommand(
        "merge",
        "Record another curator's decisions (FROM) into a project file (INTO) of the same manifest, to adjudicate");
    mergeCmd->add_option("into", merge->into, "The project (file or postgresql:// URI) that receives the decisions")
        ->required()
        ->check(projectAddress());
    mergeCmd->add_option("from", merge->from, "The other curator's project (file or postgresql:// URI)")
        ->required()
        ->check(projectAddress());
    mergeCmd->add_option("--as", merge->importAs, "Record the imported decisions under this curator name");
    mergeCmd->add_flag("--unchecked", merge->unchecked,
                       "Do not read INTO's corpora to check that every decision of FROM names one of their mentions");
    mergeCmd->callback([merge] { runMerge(*merge); });
}

}  // namespace linkscope::cli
