#pragma once
// linkscope-cli simulate-curation without --order: the simulated curation experiment on a
// trained run (curation/simulated_curation.h). The documents of the evaluated split are walked in
// order; the gold link of every mention the run's linker gets wrong is fed back into its
// datastore as a correction at once. Exists only in linkscope-cli-dense (the run's encoder needs
// LibTorch); the arguments are parsed in both programs.
#include <cstddef>
#include <filesystem>

#include "augment_options.h"
#include "dictionary_setup.h"
#include "encoder_options.h"

namespace linkscope::cli {

struct DocumentSimulationArguments {
    std::filesystem::path run;
    DictionaryArguments data;
    EncoderArguments encoder;
    AugmentArguments augment;
    std::filesystem::path csv;
    std::filesystem::path svg;
    std::size_t evaluateEvery = 1;
    unsigned threads = 0;
    bool json = false;
};

/// Prints the final accuracies with and without feedback, and writes the curve as CSV and SVG
/// when their files are given. Error without --knn or --sieve, before the run is read.
void runDocumentSimulation(const DocumentSimulationArguments& args);

}  // namespace linkscope::cli
