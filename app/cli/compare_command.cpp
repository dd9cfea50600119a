// linkscope-cli compare RUN.jsonl RUN.jsonl [RUN.jsonl...] [--k K] [--strict] [--json]: saved runs
// (the --per-mention files of `linkscope-cli eval`) compared on the same mentions.
//   Two files: McNemar's test and bootstrap intervals for A against B (compare.h), as before.
//   Three or more (or --matrix): every run's accuracy with its interval, the N x N matrix of
//   McNemar p-values with Holm's correction over the N(N-1)/2 pairs, and per-group rows (seen /
//   unseen, homonym-affected, composite, per type), from multi_compare.h.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "eval/compare.h"
#include "eval/mention_groups.h"
#include "eval/multi_compare.h"
#include "eval/multi_report.h"
#include "eval/per_mention_reader.h"
#include "eval/report.h"
#include "util/allocation_guard.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct CompareArguments {
    std::vector<std::filesystem::path> files;
    std::size_t k = 1;
    bool strict = false;
    std::size_t resamples = 1000;
    double alpha = 0.05;
    bool matrix = false;
    bool json = false;
};

/// A per-mention file; an allocation it sizes beyond this machine's memory names it.
eval::EvalResult readRun(const std::filesystem::path& file) {
    return readNamingFile(file, [&] { return eval::readPerMention(file); });
}

void compareTwo(const CompareArguments& args) {
    const std::filesystem::path& pathA = args.files[0];
    const std::filesystem::path& pathB = args.files[1];
    const eval::EvalResult a = readRun(pathA);
    const eval::EvalResult b = readRun(pathB);
    eval::BootstrapOptions options;
    options.resamples = args.resamples;
    // compareRuns checks that both files hold the same mentions in the same order.
    const eval::RunComparison comparison = [&] {
        try {
            return eval::compareRuns(a, b, args.k, args.strict, options);
        } catch (const Error& e) {
            // A truncated or foreign file: name both, since either may be the one at fault.
            throw Error(pathA.string() + " and " + pathB.string() + ": " + e.what());
        }
    }();
    if (args.json)
        std::cout << eval::comparisonJson(comparison) << '\n';
    else
        std::cout << eval::formatComparison(comparison, pathA.filename().string(), pathB.filename().string());
}

void compareMany(const CompareArguments& args) {
    std::vector<eval::EvalResult> results;
    results.reserve(args.files.size());
    for (const auto& file : args.files) results.push_back(readRun(file));
    std::vector<eval::NamedRun> runs;
    for (std::size_t i = 0; i < args.files.size(); ++i) runs.push_back({args.files[i].string(), &results[i]});
    // The groups are properties of the mentions, the same in every file: the first one's.
    const std::vector<eval::MentionGroup> groups = eval::mentionGroups(
        readNamingFile(args.files.front(), [&] { return eval::readMentionFacts(args.files.front()); }));
    eval::MultiComparisonOptions options;
    options.k = args.k;
    options.strict = args.strict;
    options.alpha = args.alpha;
    options.bootstrap.resamples = args.resamples;
    // compareManyRuns names the files that differ (they are the run names).
    const eval::MultiComparison comparison = eval::compareManyRuns(runs, groups, options);
    std::cout << (args.json ? eval::multiComparisonJson(comparison) : eval::formatMultiComparison(comparison));
}

}  // namespace

void addCompareCommand(CLI::App& app) {
    auto args = std::make_shared<CompareArguments>();
    CLI::App* cmd = app.add_subcommand(
        "compare",
        "Compare saved runs (per-mention files): McNemar's test (Holm-corrected for 3 or more), bootstrap intervals");
    cmd->add_option("runs", args->files, "Per-mention files (eval --per-mention) of the same mentions, two or more")
        ->required()
        ->expected(2, -1)
        ->check(CLI::ExistingFile);
    cmd->add_option("--k", args->k, "Cut-off: a mention is right when ranked within k")->check(CLI::PositiveNumber);
    cmd->add_flag("--strict", args->strict, "Strict correctness (an entry naming several concepts is wrong)");
    cmd->add_option("--resamples", args->resamples, "Bootstrap resamples, at most 1000000")->check(CLI::PositiveNumber);
    cmd->add_option("--alpha", args->alpha, "Family-wise error rate of the Holm-corrected matrix")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_flag("--matrix", args->matrix, "The many-run report (table, matrix, groups) also for two files");
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->callback([args] {
        // Checked before any file is read: a count from the command line sizes the bootstrap's
        // memory and time, and a huge one must be a plain error, not an allocation failure.
        if (args->resamples > eval::kMaxBootstrapResamples)
            throw Error("compare: --resamples " + std::to_string(args->resamples) + " is more than the maximum of " +
                        std::to_string(eval::kMaxBootstrapResamples) +
                        " (intervals are stable to a few decimals from 10000 on)");
        if (args->files.size() == 2 && !args->matrix)
            compareTwo(*args);
        else
            compareMany(*args);
    });
}

}  // namespace linkscope::cli
