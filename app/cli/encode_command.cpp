// linkscope-cli encode --model DIR [--pooling cls|mean|markers|start-end] [--max-length N] ...
//
// Reads one text per line on standard input and prints, per line, its vector as space-separated
// floats (9 significant digits: a float read back is the same float), to compare with the
// Python original, e.g. model(**tokenizer(texts, padding=True))[0][:, 0] for [CLS] pooling.
// Lines are encoded in chunks, so the output streams for inputs of any size.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "dense_dictionary.h"
#include "dense_engine.h"
#include "stdin_lines.h"

namespace linkscope::cli {
namespace {

struct EncodeArguments {
    EncoderArguments encoder;
};

void runEncode(const EncodeArguments& args) {
    const encoder::TextEncoder encoder = loadEncoder(args.encoder);
    const std::size_t dimension = encoder.dimension();
    StdinLines lines(std::cin);
    // A few batches at a time: enough for length bucketing to pay, small enough to stream.
    const std::size_t chunk = std::max<std::size_t>(args.encoder.batchSize * 4, 1);
    std::string out;
    char number[32];
    for (;;) {
        const std::vector<std::string> texts = lines.take(chunk);
        if (texts.empty()) break;
        const std::vector<float> vectors = encoder.encode(texts);
        for (std::size_t t = 0; t < texts.size(); ++t) {
            out.clear();
            for (std::size_t d = 0; d < dimension; ++d) {
                std::snprintf(number, sizeof number, d ? " %.9g" : "%.9g",
                              static_cast<double>(vectors[t * dimension + d]));
                out += number;
            }
            std::cout << out << '\n';
        }
    }
    std::cout.flush();
}

}  // namespace

void addEncodeCommand(CLI::App& app) {
    auto args = std::make_shared<EncodeArguments>();
    CLI::App* cmd = app.add_subcommand("encode", std::string(denseOnlyDescription("encode")));
    args->encoder.addOptions(*cmd, true, 25);
    cmd->callback([args] { runEncode(*args); });
}

}  // namespace linkscope::cli
