#pragma once
// Registration of the linkscope-cli subcommands. A command's callback throws on failure; main()
// turns that into one message on stderr and a non-zero exit status.
namespace CLI {
class App;
}

namespace linkscope::cli {

void addStatsCommand(CLI::App& app);
void addEvalCommand(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addIndexCommand(CLI::App& app);
void addTokenizeCommand(CLI::App& app);
void addExportCommand(CLI::App& app);
void addLinkCommand(CLI::App& app);         ///< every mention of a corpus linked, written in its format
void addMergeShardsCommand(CLI::App& app);  ///< the parts of link --shard joined into one file
void addAgreementCommand(CLI::App& app);    ///< agreement and merge (several curators)
void addProjectCommand(CLI::App& app);      ///< project check
void addModelCommand(CLI::App& app);        ///< model check (no LibTorch: headers and tensor lists)
/// With --run or --model, handed to linkscope-cli-dense.
void addSimulateCurationCommand(CLI::App& app);
#if LINKSCOPE_HAVE_TORCH
void addEncodeCommand(CLI::App& app);
void addInitModelCommand(CLI::App& app);
void addTrainCommand(CLI::App& app);
void addPretrainCommand(CLI::App& app);
#endif

}  // namespace linkscope::cli
