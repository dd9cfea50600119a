// linkscope-cli tokenize --model DIR [--max-length N] [--no-special-tokens] [--tokens]
//
// Reads one text per line on standard input and prints, per line, the token ids space-separated
// (or the word pieces with --tokens): what a user compares with Python's
//   tokenizer(text)["input_ids"]   /   tokenizer.tokenize(text)
// to check that Linkscope reads a checkpoint's tokenizer as transformers does.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.h"
#include "encoder/bert_tokenizer.h"
#include "model_warnings.h"
#include "stdin_lines.h"
#include "train/run_directory.h"

namespace linkscope::cli {
namespace {

struct TokenizeArguments {
    std::filesystem::path model;
    std::size_t maxLength = 0;
    bool noSpecialTokens = false;
    bool tokens = false;
};

void runTokenize(const TokenizeArguments& args) {
    // A training run (train or pretrain --out) stands for its model, as in every other command.
    const std::filesystem::path model =
        train::isRunDirectory(args.model) ? train::modelDirectory(args.model) : args.model;
    const encoder::BertTokenizer tokenizer = encoder::BertTokenizer::fromDirectory(model);
    printTokenizerWarnings(model);
    encoder::EncodeOptions options;
    // transformers does not truncate unless asked; neither do we, up to the model's own limit.
    options.maxLength =
        args.maxLength != 0 ? args.maxLength : std::max<std::size_t>(tokenizer.config().modelMaxLength, 2);
    options.addSpecialTokens = !args.noSpecialTokens;
    StdinLines lines(std::cin);
    std::string out;
    while (const auto line = lines.next()) {
        out.clear();
        if (args.tokens) {
            // As tokenizer.tokenize(text): the pieces, without [CLS]/[SEP] and untruncated.
            for (const std::string& piece : tokenizer.tokenize(*line)) {
                if (!out.empty()) out += ' ';
                out += piece;
            }
        } else {
            const encoder::Encoding encoding = tokenizer.encode(*line, options);
            for (std::size_t i = 0; i < encoding.ids.size(); ++i) {
                if (i) out += ' ';
                out += std::to_string(encoding.ids[i]);
            }
        }
        std::cout << out << '\n';
    }
    std::cout.flush();
}

}  // namespace

void addTokenizeCommand(CLI::App& app) {
    auto args = std::make_shared<TokenizeArguments>();
    CLI::App* cmd = app.add_subcommand(
        "tokenize",
        "Print the token ids of each line of standard input, as the model's tokenizer (WordPiece or XLM-R's "
        "SentencePiece) gives them");
    cmd->add_option("--model", args->model,
                    "Checkpoint folder: vocab.txt, tokenizer.json or sentencepiece.bpe.model, with "
                    "tokenizer_config.json when present; or a training run folder (its model)")
        ->required()
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--max-length", args->maxLength, "Truncate to this many tokens (default: the model's maximum)");
    cmd->add_flag("--no-special-tokens", args->noSpecialTokens, "Leave out [CLS] and [SEP]");
    cmd->add_flag("--tokens", args->tokens, "Print the word pieces (as tokenizer.tokenize) instead of the ids");
    cmd->callback([args] { runTokenize(*args); });
}

}  // namespace linkscope::cli
