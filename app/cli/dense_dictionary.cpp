#include "dense_dictionary.h"

#include <chrono>
#include <filesystem>

#include "model_warnings.h"
#include "retrieval/dictionary_fingerprint.h"

namespace linkscope::cli {

encoder::TextEncoder loadEncoder(const EncoderArguments& args) {
    encoder::TextEncoder encoder = encoder::TextEncoder::load(args.model, args.options());
    printTokenizerWarnings(args.model);
    return encoder;
}

std::vector<float> encodeTexts(const encoder::TextEncoder& encoder, std::span<const std::string> texts,
                               std::string_view what, ConsoleProgress& progress) {
    const std::string stage = "Encoding " + std::string(what);
    ProgressSink sink;
    sink.report = [&progress, &stage](std::string_view, double fraction) { progress.report(stage, fraction); };
    return encoder.encode(texts, &sink);
}

std::string encoderFingerprint(const encoder::TextEncoder& encoder) {
    const encoder::EncoderOptions& options = encoder.options();
    return encoder.fingerprint() + ", pooling " + std::string(encoder::poolingName(encoder.pooling())) +
           ", max length " + std::to_string(options.maxLength) + (options.normalize ? ", normalized" : "");
}

std::string denseFingerprint(const encoder::TextEncoder& encoder, const retrieval::NameDictionary& dictionary) {
    return "model " + encoderFingerprint(encoder) + ", dictionary " + retrieval::fingerprintOf(dictionary).describe();
}

DenseDictionary prepareDenseDictionary(const encoder::TextEncoder& encoder, const retrieval::NameDictionary& dictionary,
                                       const DenseIndexArguments& args, ConsoleProgress& progress) {
    const auto start = std::chrono::steady_clock::now();
    const std::string fingerprint = denseFingerprint(encoder, dictionary);
    DenseDictionary dense;
    if (!args.file.empty() && !args.rebuild && std::filesystem::exists(args.file)) {
        dense.index = retrieval::DenseIndex::load(args.file, fingerprint);
        dense.index.setSearchOptions(args.options());
        dense.vectors = dense.index.vectors();
        dense.loaded = true;
    } else {
        std::vector<std::string> names;
        names.reserve(dictionary.size());
        for (const auto& entry : dictionary) names.push_back(entry.name);
        dense.vectors = encodeTexts(encoder, names, "dictionary", progress);
        const ProgressSink indexing = progress.sink();
        dense.index =
            retrieval::DenseIndex::build(dense.vectors, encoder.dimension(), fingerprint, args.options(), &indexing);
        if (!args.file.empty()) dense.index.save(args.file);
    }
    dense.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return dense;
}

}  // namespace linkscope::cli
