// linkscope-cli model check DIR [--json]
//
// What a checkpoint folder holds and what loading it would use (encoder/checkpoint_report.h):
// architecture, tokenizer and casing, weights files, formats and dtypes, parameters, pooling,
// BioSyn's extras, with every warning. It needs no LibTorch and runs no forward pass. The report
// goes to standard output in full; a folder that cannot be loaded then ends the command with
// its first reason and a non-zero status.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "commands.h"
#include "encoder/checkpoint_report.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct ModelCheckArguments {
    std::filesystem::path directory;
    bool json = false;
};

void runModelCheck(const ModelCheckArguments& args) {
    const encoder::CheckpointReport report = encoder::checkCheckpoint(args.directory);
    std::cout << (args.json ? encoder::reportJson(report) : encoder::reportText(report));
    std::cout.flush();
    if (!report.loadable())
        throw Error(args.directory.string() + " cannot be loaded: " + report.errors.front() +
                    (report.errors.size() > 1 ? " (and " + std::to_string(report.errors.size() - 1) + " more)" : ""));
}

}  // namespace

void addModelCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("model", "Model tools: check (what a checkpoint folder holds and what is used)");
    cmd->require_subcommand(1);
    auto args = std::make_shared<ModelCheckArguments>();
    CLI::App* check = cmd->add_subcommand(
        "check",
        "Report a checkpoint folder without loading the model: architecture, tokenizer and casing, weights files "
        "with format and dtypes, parameters, pooling, BioSyn's extras, which weights are used, every warning");
    check->add_option("directory", args->directory, "Checkpoint folder (Hugging Face layout) or training run folder")
        ->required();
    check->add_flag("--json", args->json, "Print the report as one JSON object");
    check->callback([args] { runModelCheck(*args); });
}

}  // namespace linkscope::cli
