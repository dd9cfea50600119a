#pragma once
// `linkscope-cli eval --run RUN_DIR` (or `--model RUN_DIR`): evaluates the model a training run
// kept (RUN/model) the way its method links -- the preset's inputs, similarity and candidate
// stages (train/method_linker.h), BioSyn's lambda as learned -- with the same protocol and
// outputs as the other linkers of `eval`. Needs LibTorch.
#include <cstddef>
#include <filesystem>

#include "dictionary_setup.h"
#include "encoder_options.h"

namespace linkscope::cli {

struct RunEvalArguments {
    std::filesystem::path run;
    /// The data; homonym expansion is switched on when the preset trains on the expanded KB.
    DictionaryArguments data;
    /// Device, batch size and precision. Pooling, lengths and normalization are the preset's.
    EncoderArguments encoder;
    std::size_t k = 64;
    std::filesystem::path report;
    std::filesystem::path perMention;
    unsigned threads = 0;
    bool json = false;
};

/// Runs the evaluation and prints the table (or the JSON report with `json`); writes the report
/// and the per-mention predictions when their files are given. Error when the folder is not a
/// run directory or holds no model yet.
void runEvalOfRun(const RunEvalArguments& args);

}  // namespace linkscope::cli
