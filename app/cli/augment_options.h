#pragma once
// Command-line options that link with what is already linked (curation/augmented_linker.h):
// kNN-BioEL's datastore interpolation or Xu & Bethard's sieves over a training run's linker.
// Shared by `eval --run` and `simulate-curation`.
//
//   --knn [--knn-settings ncbi|bc5cdr] [--knn-k K] [--knn-lambda L] [--knn-beta1 B1] [--knn-beta2 B2]
//   --sieve SPEC [--sieve-threshold T]      SPEC: O-T, D-T+OD-T, exact+D-T+OD-T, ...
//   --linking model,knn,O-T,D-T+OD-T@0.999,knn@0.3/0.001/0.01,...
//                                           several side by side (one table row each)
//   --datastore FILE                        loaded when it exists (and was made by the run's
//                                           model), else built from --train and saved there
//   --project FILE.linkscope                the same, kept inside the project file (one
//                                           datastore per encoder), and the run registered there
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "curation/augmented_linker.h"

namespace CLI {
class App;
}

namespace linkscope::cli {

struct AugmentArguments {
    bool knn = false;
    std::string knnSettings = "ncbi";
    std::optional<std::size_t> knnK;
    std::optional<double> knnLambda;
    std::optional<double> knnBeta1;
    std::optional<double> knnBeta2;
    std::string sieve;
    /// Unset: the run preset's triplet.sieve_threshold.
    std::optional<double> sieveThreshold;
    std::filesystem::path datastore;
    std::filesystem::path project;
    std::vector<std::string> linkings;

    void addOptions(CLI::App& command);
    /// Whether a datastore or a sieve is asked for.
    bool active() const noexcept { return knn || !sieve.empty() || !linkings.empty(); }
    /// The linker's options; Error for --knn with --sieve, or invalid values.
    /// presetSieveThreshold: the run preset's triplet.sieve_threshold, used when no
    /// --sieve-threshold is given.
    curation::AugmentedOptions options(std::size_t ontologyEntries, double presetSieveThreshold) const;
    /// The options of each --linking item ("model", "knn" with the --knn-* values, or a sieve
    /// with --sieve-threshold); Error for an unknown item or --linking with --knn / --sieve.
    std::vector<curation::AugmentedOptions> linkingOptions(std::size_t ontologyEntries,
                                                           double presetSieveThreshold) const;
    /// One line for reports: "knn (k 4, lambda 0.1, beta1 0.01, beta2 1)" or "sieve D-T+OD-T (0.95)".
    static std::string describe(const curation::AugmentedOptions& options);
};

}  // namespace linkscope::cli
