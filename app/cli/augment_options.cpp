#include "augment_options.h"

#include <CLI/CLI.hpp>

#include <sstream>

#include "project_address.h"
#include "retrieval/knn_interpolation.h"
#include "retrieval/sieve.h"
#include "util/error.h"

namespace linkscope::cli {

void AugmentArguments::addOptions(CLI::App& command) {
    command.add_flag("--knn", knn,
                     "kNN-BioEL: interpolate the model with the nearest keys of the datastore (training mentions, "
                     "curator decisions)");
    command
        .add_option("--knn-settings", knnSettings, "The paper's settings: ncbi (beta 0.01/1.0) or bc5cdr (0.05/5.0)")
        ->check(CLI::IsMember({"ncbi", "bc5cdr"}))
        ->capture_default_str();
    command.add_option("--knn-k", knnK, "Neighbours retrieved (paper: 4)");
    command.add_option("--knn-lambda", knnLambda, "Weight of p_kNN (paper: 0.1)");
    command.add_option("--knn-beta1", knnBeta1, "Temperature of p_model");
    command.add_option("--knn-beta2", knnBeta2, "Temperature of p_kNN");
    command.add_option("--sieve", sieve,
                       "Xu & Bethard's search: O-T, O-C, D-T, D-C, OD-T, OD-C, or a sieve such as D-T+OD-T "
                       "(\"exact+\" in front: an exact-match stage first)");
    command.add_option("--sieve-threshold", sieveThreshold,
                       "A sieve stage decides when its best cosine reaches this (default: the run preset's "
                       "triplet.sieve_threshold, 0.95 as in the paper)");
    command
        .add_option("--linking", linkings,
                    "Compare linkings side by side: a comma-separated list of model, knn and search strategies or "
                    "sieves (e.g. model,knn,O-T,OD-T,D-T+OD-T); knn@LAMBDA/BETA1/BETA2 and SIEVE@THRESHOLD set their "
                    "values for that item")
        ->delimiter(',');
    command.add_option("--datastore", datastore,
                       "kNN datastore file: loaded when it exists (made by this model), else built from the training "
                       "mentions and saved");
    command
        .add_option("--project", project,
                    "Project file (.linkscope): the kNN datastore is kept inside it, one per encoder (loaded when "
                    "there, else built from the training mentions and stored), and the run is registered in it")
        ->check(projectAddress());
}

curation::AugmentedOptions AugmentArguments::options(std::size_t ontologyEntries, double presetSieveThreshold) const {
    if (knn && !sieve.empty()) throw Error("give --knn or --sieve, not both");
    curation::AugmentedOptions options;
    options.ontologyEntries = ontologyEntries;
    if (knn) {
        options.mode = curation::LinkMode::Knn;
        options.knn = knnSettings == "bc5cdr" ? retrieval::KnnSettings::bc5cdr() : retrieval::KnnSettings::ncbi();
        if (knnK) options.knn.k = *knnK;
        if (knnLambda) options.knn.lambda = *knnLambda;
        if (knnBeta1) options.knn.beta1 = *knnBeta1;
        if (knnBeta2) options.knn.beta2 = *knnBeta2;
        retrieval::validate(options.knn);
    } else if (!sieve.empty()) {
        options.mode = curation::LinkMode::Sieve;
        options.sieve = retrieval::parseSieve(sieve);
        options.sieve.threshold = sieveThreshold.value_or(presetSieveThreshold);
    }
    return options;
}

std::vector<curation::AugmentedOptions> AugmentArguments::linkingOptions(std::size_t ontologyEntries,
                                                                         double presetSieveThreshold) const {
    if (knn || !sieve.empty()) throw Error("--linking lists the linkings itself: leave out --knn and --sieve");
    std::vector<curation::AugmentedOptions> all;
    for (const auto& item : linkings) {
        // "knn@LAMBDA/BETA1/BETA2" and "SIEVE@THRESHOLD" set their values for this item alone,
        // so a grid is one command.
        const auto at = item.find('@');
        const std::string name = item.substr(0, at);
        std::vector<double> values;
        if (at != std::string::npos) {
            std::istringstream in(item.substr(at + 1));
            std::string field;
            while (std::getline(in, field, '/')) {
                std::size_t used = 0;
                double value = 0.0;
                try {
                    value = std::stod(field, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used == 0 || used != field.size())
                    throw Error("--linking " + item + ": \"" + field + "\" is not a number");
                values.push_back(value);
            }
        }
        AugmentArguments one = *this;
        one.linkings.clear();
        if (name == "knn") {
            one.knn = true;
            if (at != std::string::npos && values.size() != 3)
                throw Error("--linking " + item + ": knn@LAMBDA/BETA1/BETA2 takes three numbers");
            if (values.size() == 3) {
                one.knnLambda = values[0];
                one.knnBeta1 = values[1];
                one.knnBeta2 = values[2];
            }
        } else if (name == "model") {
            if (at != std::string::npos) throw Error("--linking " + item + ": \"model\" takes no values");
        } else {
            one.sieve = name;
            if (at != std::string::npos && values.size() != 1)
                throw Error("--linking " + item + ": SIEVE@THRESHOLD takes one number");
            if (values.size() == 1) one.sieveThreshold = values[0];
        }
        all.push_back(one.options(ontologyEntries, presetSieveThreshold));
    }
    return all;
}

std::string AugmentArguments::describe(const curation::AugmentedOptions& options) {
    std::ostringstream out;
    out << curation::linkModeName(options.mode);
    if (options.mode == curation::LinkMode::Knn)
        out << " (k " << options.knn.k << ", lambda " << options.knn.lambda << ", beta1 " << options.knn.beta1
            << ", beta2 " << options.knn.beta2 << ")";
    else if (options.mode == curation::LinkMode::Sieve)
        out << " " << retrieval::sieveName(options.sieve) << " (threshold " << options.sieve.threshold << ")";
    return out.str();
}

}  // namespace linkscope::cli
