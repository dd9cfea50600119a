#include "model_warnings.h"

#include <iostream>
#include <system_error>

#include "encoder/checkpoint_files.h"
#include "encoder/tokenizer_casing.h"
#include "util/error.h"

namespace linkscope::cli {

std::vector<std::string> tokenizerWarnings(const std::filesystem::path& model) {
    std::filesystem::path directory = model;
    std::error_code ec;
    // A run folder or a folder with its checkpoint in a subfolder: where the tokenizer is.
    if (!std::filesystem::exists(model / "vocab.txt", ec)) {
        try {
            directory = encoder::locateCheckpoint(model).directory;
        } catch (const Error&) {
            return {};
        }
    }
    try {
        return encoder::decideCasing(directory).warnings;
    } catch (const Error&) {
        return {};
    }
}

void printTokenizerWarnings(const std::filesystem::path& model) {
    for (const std::string& warning : tokenizerWarnings(model)) std::cerr << "warning: " << warning << '\n';
}

}  // namespace linkscope::cli
