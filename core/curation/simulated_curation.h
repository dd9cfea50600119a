#pragma once
// The simulated curation experiment: a curator walks the documents in order; every
// mention the linker gets wrong is corrected to its gold entity, and the correction goes into
// the datastore at once (feedback_loop.h). Each document is linked when the curator reaches
// it, so it profits from every correction made before it. The same walk without feedback links
// every document with the datastore as it was at the start.
//
// Reported per document: the accuracy of the documents done so far (each as linked when
// reached: "online") and of the documents still to come, with and without the feedback. The
// curve of the second against the number of documents done is the experiment's plot; the
// final online accuracies are its gain.
//
// Correctness is Acc@1 at entity level: every part of the mention has a top entity among the
// mention's gold ids (BioSyn's lenient rule, read on entities rather than dictionary entries,
// so a homonym name shared by several entities counts for the one ranked first).
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "eval/queries.h"
#include "util/progress.h"

namespace linkscope::retrieval {
class KnnDatastore;
}

namespace linkscope::curation {

class AugmentedLinker;

struct CurationStep {
    std::size_t documentsDone = 0;
    std::size_t mentionsDone = 0;
    std::size_t correctionsFed = 0;  ///< keys added so far
    std::size_t remainingMentions = 0;
    /// Acc@1 of the documents after this one (unset when none remain or this step was not evaluated).
    std::optional<double> remainingWithFeedback;
    std::optional<double> remainingWithout;
    /// Acc@1 of the documents done, each linked when reached.
    double onlineWithFeedback = 0.0;
    double onlineWithout = 0.0;
};

struct CurationSimulation {
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::vector<CurationStep> steps;  ///< step 0: nothing done yet; then one per document
    /// Acc@1 of the whole walk, each document linked when reached.
    double accuracyWithFeedback = 0.0;
    double accuracyWithout = 0.0;
    std::size_t corrections = 0;
    std::size_t compositesNotFed = 0;  ///< wrong composite mentions, not fed back (see the .cpp)
};

struct CurationSimulationOptions {
    /// The remaining documents are linked again after every `evaluateEvery`-th document (and
    /// after the first and the last): the costly part of the experiment.
    std::size_t evaluateEvery = 1;
    ProgressSink progress;  ///< "Simulating curation"; Cancelled
};

/// Runs the walk over the queries (documents in order of first appearance). input(query, part)
/// gives the method's mention input (eval::EvalOptions::partText). The linker must read
/// `datastore`; the keys the walk adds are removed again before it returns (also on error).
CurationSimulation simulateCuration(const AugmentedLinker& linker, retrieval::KnnDatastore& datastore,
                                    std::span<const eval::EvalQuery> queries,
                                    const std::function<std::string(const eval::EvalQuery&, std::size_t)>& input,
                                    const CurationSimulationOptions& options = {});

/// The curve as CSV (header line, one row per step; empty cells where a step was not evaluated).
/// In linkscope_core (curation_csv.cpp): every build writes and reads the format.
std::string curationCsv(const CurationSimulation& simulation);

}  // namespace linkscope::curation
