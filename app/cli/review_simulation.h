#pragma once
// linkscope-cli simulate-curation --order queue|document[,...]: the mention-level simulated
// review (curation/review_walk.h) with the GUI's sparse ranker, or with a trained run
// and its datastore (--run, review_run_setup.h): a curator decides one mention at a
// time in document order or by the review queue (curation/review_queue.h), and the accuracy of
// the whole split is followed decision by decision. The walk and the sparse ranker need no
// LibTorch and run in linkscope-cli; a run's ranker exists only in linkscope-cli-dense.
//
// With --curator NAME (and --project FILE|URI), one simulated curator instead, whose decisions
// are stored in the project (simulated_curator.h).
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "augment_options.h"
#include "console_progress.h"
#include "curation/review_queue.h"
#include "curation/review_walk.h"
#include "dictionary_setup.h"
#include "encoder_options.h"
#include "simulated_curator.h"

namespace linkscope::cli {

struct ReviewSimulationArguments {
    DictionaryArguments data;
    /// A trained run (optional): the walk links with it and the datastore of its training
    /// mentions (augment: --knn or --sieve), each decision added to the datastore at once; the
    /// queue's other linkers are sparse TF-IDF and the run without its datastore.
    std::filesystem::path run;
    EncoderArguments encoder;
    AugmentArguments augment;
    unsigned threads = 0;
    std::vector<std::string> orders;  ///< "queue", "document", in the order they are walked
    bool applyToAll = false;
    curation::ReviewPolicy policy;  ///< the queue's weights (review_queue.h)
    std::size_t maxDecisions = 0;   ///< 0: until every mention is decided
    double target = 0.98;           ///< the accuracy whose number of decisions is reported
    std::filesystem::path csv;
    std::filesystem::path svg;
    bool json = false;
    /// A simulated curator storing its decisions in this project (a file or a server URI) ...
    std::filesystem::path project;
    /// ... under this name (for a file; on a server the decisions also name the login).
    std::string curator;
    double rate = 0.0;       ///< decisions per second (0: as fast as the store takes them)
    std::size_t limit = 0;   ///< stop after N decisions stored (0: --max-decisions, or all)
    unsigned claimTtl = 60;  ///< seconds a claim lasts unless renewed
};

/// What a walk links with, and its mentions; the objects the linker reads live in the derived
/// setup and are released after the linker.
struct ReviewSetup {
    virtual ~ReviewSetup() = default;
    std::vector<curation::ReviewMention> mentions;
    std::unique_ptr<curation::ReviewLinker> linker;
    std::string linking;  ///< in words, for the report
    /// The mentions as a project names them (parallel to `mentions`), for a simulated curator.
    std::vector<ProjectMention> inProject;
};

/// Builds the setup a walk links with from the arguments, reporting on `progress`.
using ReviewSetupFunction = std::unique_ptr<ReviewSetup> (*)(const ReviewSimulationArguments& args,
                                                             ConsoleProgress& progress);

/// The GUI's ranker before a model is trained: sparse TF-IDF over the KB's homonym-expanded
/// names. Reads no model; args.run is not read.
std::unique_ptr<ReviewSetup> sparseReviewSetup(const ReviewSimulationArguments& args, ConsoleProgress& progress);

/// Runs one walk per order with the linker `makeSetup` builds, and prints, per walk, the
/// decisions needed to reach the target and the accuracy along the way; writes the CSV and SVG
/// curves when their files are given. Error for an unknown order, before anything is read.
/// With args.curator: runs one simulated curator on args.project and prints its report instead
/// (one order; no CSV, SVG or "apply to all").
void runReviewSimulation(const ReviewSimulationArguments& args, ReviewSetupFunction makeSetup);

}  // namespace linkscope::cli
