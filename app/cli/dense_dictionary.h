#pragma once
// Running an encoder from the command line: loading it, encoding with progress on stderr,
// and the dictionary's vectors with their index, loaded from a file or built. Needs LibTorch.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "console_progress.h"
#include "encoder_options.h"
#include "retrieval/name_dictionary.h"

namespace linkscope::cli {

encoder::TextEncoder loadEncoder(const EncoderArguments& args);

/// Encodes texts, reported to `progress` as the stage "Encoding <what>".
std::vector<float> encodeTexts(const encoder::TextEncoder& encoder, std::span<const std::string> texts,
                               std::string_view what, ConsoleProgress& progress);

/// The dictionary's vectors and their index.
struct DenseDictionary {
    std::vector<float> vectors;  ///< one row per entry (what the index holds)
    retrieval::DenseIndex index;
    bool loaded = false;  ///< read from DenseIndexArguments::file
    double seconds = 0.0;
};

/// Identifies the vectors this encoder makes: its fingerprint (configuration, weights, tokenizer)
/// with the pooling, max length and normalization it encodes with.
std::string encoderFingerprint(const encoder::TextEncoder& encoder);

/// Identifies the vectors of this dictionary made by this encoder with these options.
std::string denseFingerprint(const encoder::TextEncoder& encoder, const retrieval::NameDictionary& dictionary);

/// Loads the index file when it exists (Error when it was built for another model or
/// dictionary), else encodes the dictionary, builds the index and saves it when a file is given,
/// reporting both stages to `progress`.
DenseDictionary prepareDenseDictionary(const encoder::TextEncoder& encoder, const retrieval::NameDictionary& dictionary,
                                       const DenseIndexArguments& args, ConsoleProgress& progress);

}  // namespace linkscope::cli
