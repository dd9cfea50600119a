#pragma once
// What a command prints about a model folder before using it: the warnings of its tokenizer
// (a cased vocabulary that will be lower-cased), one "warning: " line each on stderr.
#include <filesystem>
#include <string>
#include <vector>

namespace linkscope::cli {

/// The tokenizer warnings of a checkpoint or tokenizer folder (or of the checkpoint a run's
/// folder resolves to). Advisory: a folder that cannot be read gives none, the loading itself
/// reports its errors.
std::vector<std::string> tokenizerWarnings(const std::filesystem::path& model);

/// tokenizerWarnings, printed on stderr as "warning: ..." lines.
void printTokenizerWarnings(const std::filesystem::path& model);

}  // namespace linkscope::cli
