// linkscope-cli: the Linkscope engine without a GUI. Each subcommand lives in its own file. Built
// twice: linkscope-cli without LibTorch, and linkscope-cli-dense with it (dense_engine.h).
#include <CLI/CLI.hpp>

#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "commands.h"
#include "dense_engine.h"
#include "util/error.h"
#include "util/huge_pages.h"
#include "util/progress.h"

namespace {

// The commands that hold gigabytes at UMLS size for minutes (the long ones, with progress). The
// restart loads the program a second time (and LibTorch, in linkscope-cli-dense), which about
// doubles the start of a short command (`--version`, `export` of a small project: the
// hostile-input tests call hundreds), so only these restart. A command line linkscope-cli hands to
// linkscope-cli-dense keeps the restarted environment and is not restarted again.
bool isLongCommand(std::string_view name) {
    for (const std::string_view command : {"eval", "link", "index", "train", "pretrain", "simulate-curation", "encode"})
        if (name == command) return true;
    return false;
}

/// "linkscope-cli compare" for the subcommand that ran, for messages that have no file to name.
std::string commandName(const CLI::App& app) {
    const auto parsed = app.get_subcommands();
    return parsed.empty() ? "linkscope-cli" : "linkscope-cli " + parsed.front()->get_name();
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::cli::rememberCommandLine(argc, argv);
    // Large blocks in 2 MiB pages (util/huge_pages.h): may restart the program once, so first.
    if (argc > 1 && isLongCommand(argv[1])) linkscope::util::restartWithHugePages(argv);
    CLI::App app{"linkscope-cli: biomedical entity linking, headless"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string(LINKSCOPE_VERSION));
    linkscope::cli::addStatsCommand(app);
    linkscope::cli::addEvalCommand(app);
    linkscope::cli::addCompareCommand(app);
    linkscope::cli::addIndexCommand(app);
    linkscope::cli::addTokenizeCommand(app);
    linkscope::cli::addExportCommand(app);
    linkscope::cli::addLinkCommand(app);
    linkscope::cli::addMergeShardsCommand(app);
    linkscope::cli::addAgreementCommand(app);
    linkscope::cli::addProjectCommand(app);
    linkscope::cli::addModelCommand(app);
    linkscope::cli::addSimulateCurationCommand(app);
#if LINKSCOPE_HAVE_TORCH
    linkscope::cli::addEncodeCommand(app);
    linkscope::cli::addInitModelCommand(app);
    linkscope::cli::addTrainCommand(app);
    linkscope::cli::addPretrainCommand(app);
#else
    linkscope::cli::addDenseOnlyCommandNames(app);
#endif
    try {
#if !LINKSCOPE_HAVE_TORCH
        // Their options are known to linkscope-cli-dense alone: handed over before parsing.
        if (const auto dense = linkscope::cli::denseOnlyCommandOf(argc, argv); !dense.empty())
            linkscope::cli::handOverToDenseEngine("linkscope-cli " + std::string(dense));
#endif
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const linkscope::Cancelled&) {
        std::cerr << "linkscope-cli: cancelled\n";
        return 130;
    } catch (const std::bad_alloc&) {
        // Readers turn an allocation their input sized into an error naming the file; what
        // reaches here is named by its command, never a bare "std::bad_alloc".
        std::cerr << "linkscope-cli: error: " << commandName(app)
                  << ": out of memory (an input or option asked for more memory than this machine can give)\n";
        return 1;
    } catch (const std::length_error& e) {
        // A size beyond what a container can hold at all ("vector::reserve"): as above.
        std::cerr << "linkscope-cli: error: " << commandName(app)
                  << ": an input or option asks for a size beyond what this program can hold (" << e.what() << ")\n";
        return 1;
    } catch (const std::exception& e) {
        // One clear message; commands print nothing to stdout before their work is complete.
        std::cerr << "linkscope-cli: error: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
