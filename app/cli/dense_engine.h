#pragma once
// linkscope-cli is two programs under one command. linkscope-cli itself is built without LibTorch
// and links only linkscope_core: every command that uses no model runs in it, and it starts
// without LibTorch's static initialisation (see benchmarks/startup). linkscope-cli-dense holds the
// same commands built with the dense engine (LibTorch, FAISS), and those that exist only there.
// linkscope-cli hands a command line that needs a model to linkscope-cli-dense unchanged, right
// after parsing it and before it reads any input, so that such a command costs what it did when
// the two were one program. In linkscope-cli-dense nothing here is called but the descriptions.
#include <span>
#include <string_view>

namespace CLI {
class App;
}

namespace linkscope::cli {

/// A command that exists only in linkscope-cli-dense, with the line --help shows for it.
struct DenseOnlyCommand {
    std::string_view name;
    std::string_view description;
};

/// encode, init-model, train and pretrain, in the order --help lists them.
std::span<const DenseOnlyCommand> denseOnlyCommands();

/// The --help line of the dense-only command `name` (this is the one place the text is kept);
/// empty for any other name.
std::string_view denseOnlyDescription(std::string_view name);

/// The dense-only command a command line runs (its first word that is not an option), or empty.
std::string_view denseOnlyCommandOf(int argc, char** argv);

/// Lists the dense-only commands in linkscope-cli's --help. Their options are known to
/// linkscope-cli-dense alone: main() hands such a command line over before parsing it.
void addDenseOnlyCommandNames(CLI::App& app);

/// Remembers main()'s command line for handOverToDenseEngine.
void rememberCommandLine(int argc, char** argv);

/// Replaces this process with linkscope-cli-dense, run on the remembered command line with
/// argv[0] unchanged (messages name the program the user typed): the one beside this program (a
/// build tree), or in the package's library folder (<prefix>/lib/linkscope/, installed). Returns
/// only by throwing CLI::ValidationError, which main() reports as a usage error: where there is
/// no linkscope-cli-dense (a build without LibTorch), saying that `what` needs the dense engine,
/// or where it cannot be started.
[[noreturn]] void handOverToDenseEngine(std::string_view what);

}  // namespace linkscope::cli
