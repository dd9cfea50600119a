#include "dense_engine.h"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace linkscope::cli {
namespace {

namespace fs = std::filesystem;

constexpr DenseOnlyCommand kDenseOnlyCommands[] = {
    {"encode", "Print the vector of each line of standard input, as the encoder gives it"},
    {"init-model",
     "Create a compact encoder (vocabulary from the KB and corpora, random weights) to train from scratch"},
    {"train",
     "Train an encoder with a method preset (BioSyn, BELHD, triplet, prototype-srn, kNN-BioEL) into a run "
     "directory"},
    {"pretrain", "Self-alignment pretraining (SapBERT) of an encoder on the synonyms of one or more vocabularies"},
};

int rememberedArgc = 0;
char** rememberedArgv = nullptr;

/// Where linkscope-cli-dense may be: beside this program (the build tree puts both in bin/), and
/// in the package's library folder, LINKSCOPE_CLI_DENSE_FROM_BIN from the program's folder.
std::vector<fs::path> denseProgramCandidates() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path folder = self.parent_path();
    return {folder / "linkscope-cli-dense", (folder / LINKSCOPE_CLI_DENSE_FROM_BIN).lexically_normal()};
}

}  // namespace

std::span<const DenseOnlyCommand> denseOnlyCommands() { return kDenseOnlyCommands; }

std::string_view denseOnlyDescription(std::string_view name) {
    for (const auto& command : kDenseOnlyCommands)
        if (command.name == name) return command.description;
    return {};
}

std::string_view denseOnlyCommandOf(int argc, char** argv) {
    for (int i = 1; i < argc && argv && argv[i]; ++i) {
        const std::string_view word = argv[i];
        if (word.starts_with('-')) continue;
        for (const auto& command : kDenseOnlyCommands)
            if (command.name == word) return command.name;
        return {};
    }
    return {};
}

void addDenseOnlyCommandNames(CLI::App& app) {
    for (const auto& command : kDenseOnlyCommands) {
        CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.description));
        sub->prefix_command();
        const std::string name(command.name);
        sub->callback([name] { handOverToDenseEngine("linkscope-cli " + name); });
    }
}

void rememberCommandLine(int argc, char** argv) {
    rememberedArgc = argc;
    rememberedArgv = argv;
}

void handOverToDenseEngine(std::string_view what) {
    const std::string needs = std::string(what) + " needs the dense engine (LibTorch)";
    if (!rememberedArgv || rememberedArgc < 1)
        throw CLI::ValidationError(needs + ", and this program was not told its command line");
    for (const auto& candidate : denseProgramCandidates()) {
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        std::cout.flush();
        std::cerr.flush();
        ::execv(candidate.c_str(), rememberedArgv);
        const int error = errno;
        throw CLI::ValidationError(needs + ", and " + candidate.string() +
                                   " cannot be started: " + std::strerror(error));
    }
    throw CLI::ValidationError(needs + ", which this build of linkscope-cli lacks: it was built without LibTorch");
}

}  // namespace linkscope::cli
