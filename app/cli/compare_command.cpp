// linkscope-cli compare A.jsonl B.jsonl [--k K] [--strict] [--json]: McNemar's test and
// bootstrap intervals for two saved runs (the --per-mention files of `linkscope-cli eval`).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "commands.h"
#include "eval/compare.h"
#include "eval/per_mention_reader.h"
#include "eval/report.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct CompareArguments {
    std::filesystem::path a;
    std::filesystem::path b;
    std::size_t k = 1;
    bool strict = false;
    std::size_t resamples = 1000;
    bool json = false;
};

void runCompare(const CompareArguments& args) {
    const eval::EvalResult a = eval::readPerMention(args.a);
    const eval::EvalResult b = eval::readPerMention(args.b);
    eval::BootstrapOptions options;
    options.resamples = args.resamples;
    // compareRuns checks that both files hold the same mentions in the same order.
    const eval::RunComparison comparison = [&] {
        try {
            return eval::compareRuns(a, b, args.k, args.strict, options);
        } catch (const Error& e) {
            // A truncated or foreign file: name both, since either may be the one at fault.
            throw Error(args.a.string() + " and " + args.b.string() + ": " + e.what());
        }
    }();
    if (args.json) std::cout << eval::comparisonJson(comparison) << '\n';
    else std::cout << eval::formatComparison(comparison, args.a.filename().string(), args.b.filename().string());
}

}  // namespace

void addCompareCommand(CLI::App& app) {
    auto args = std::make_shared<CompareArguments>();
    CLI::App* cmd = app.add_subcommand("compare", "Compare two saved runs (per-mention files): McNemar's test, bootstrap intervals");
    cmd->add_option("a", args->a, "Per-mention file of run A (eval --per-mention)")->required()->check(CLI::ExistingFile);
    cmd->add_option("b", args->b, "Per-mention file of run B")->required()->check(CLI::ExistingFile);
    cmd->add_option("--k", args->k, "Cut-off: a mention is right when ranked within k")->check(CLI::PositiveNumber);
    cmd->add_flag("--strict", args->strict, "Strict correctness (an entry naming several concepts is wrong)");
    cmd->add_option("--resamples", args->resamples, "Bootstrap resamples")->check(CLI::PositiveNumber);
    cmd->add_flag("--json", args->json, "Print one JSON object");
    cmd->callback([args] { runCompare(*args); });
}

}  // namespace linkscope::cli
