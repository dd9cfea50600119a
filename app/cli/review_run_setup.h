#pragma once
// simulate-curation --order with --run: the review walk links with a trained run and the
// datastore of its training mentions (curation/run_review_linker.h), as the GUI links once a run
// is trained. Exists only in linkscope-cli-dense (the run's encoder needs LibTorch).
#include <memory>

#include "console_progress.h"
#include "review_simulation.h"

namespace linkscope::cli {

/// The run args.run with its datastore (--knn or --sieve, else Error before the run is read),
/// each decision added to the datastore at once; the queue's other linkers are sparse TF-IDF and
/// the run without its datastore.
std::unique_ptr<ReviewSetup> runReviewSetup(const ReviewSimulationArguments& args, ConsoleProgress& progress);

}  // namespace linkscope::cli
