#pragma once
// Command-line options that choose and run an encoder and a vector index, shared by `encode`,
// `index` and `eval`. Parsing them needs no LibTorch (dense_dictionary.h runs them).
#include <cstddef>
#include <filesystem>
#include <string>

#include "encoder/text_encoder.h"
#include "retrieval/dense_index.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace linkscope::cli {

struct EncoderArguments {
    std::filesystem::path model;
    std::string pooling;  ///< empty: the model's own
    std::size_t maxLength = 25;
    std::size_t batchSize = 256;
    std::string device = "auto";
    std::string precision = "fp32";
    bool normalize = false;

    /// --model (required or not) --pooling --max-length --batch-size --device --precision
    /// --normalize; returns the --model option.
    CLI::Option* addOptions(CLI::App& command, bool modelRequired, std::size_t defaultMaxLength);
    encoder::EncoderOptions options() const;
};

struct DenseIndexArguments {
    std::filesystem::path file;  ///< loaded when it exists and fits, else built and saved
    std::string kind = "flat";
    std::size_t efSearch = 128;
    std::size_t probes = 32;
    /// Build and save even when the file exists (`index`): the new index replaces the old one
    /// atomically once it is written, so a failed or cancelled build keeps the old.
    bool rebuild = false;

    /// --dense-index --dense-kind --ef-search --probes
    void addOptions(CLI::App& command);
    retrieval::DenseIndexOptions options() const;
};

}  // namespace linkscope::cli
