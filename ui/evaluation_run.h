#pragma once
// One evaluation result as the evaluation dock holds it: core's EvalResult (metrics and the
// per-mention ranks that compare.h pairs), plus one row per mention for the error list. It comes
// from one of three sources:
//   - the project's sparse linker on one split: BioSyn's protocol as `linkscope-cli eval
//     --method sparse` runs it (dictionary = KB names + training mentions, + dev mentions for
//     the test split; queries = the split's mentions after BioSyn's preprocessing; TF-IDF on
//     character 1-2 grams), ranked by core's evaluate();
//   - a trained run on one split, linked as its method links (the CLI's `eval --run`), alone or
//     with kNN-BioEL's datastore of the training mentions (`--knn`);
//   - a per-mention file written by `linkscope-cli eval --per-mention FILE`: ranks through
//     eval::readPerMention, and the rest of each line (mention, type, gold, seen, predictions)
//     read here for the metrics groups and the error list.
// Both are plain functions, meant to run on a worker thread.
#include <QString>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/error_categories.h"
#include "eval/evaluate.h"
#include "util/progress.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

/// One evaluated mention, as the error list shows it.
struct EvaluatedMention {
    std::string split;  ///< the project split holding the document ("" when not found)
    std::string document;
    std::size_t start = 0;
    std::size_t end = 0;
    std::string mention;
    std::string type;
    std::vector<std::string> gold;
    /// The top prediction of each query part (one for a mention that was not split).
    std::string predictedName;
    std::vector<std::string> predictedIds;
    std::size_t rank = 0;  ///< 0 = not within the depth
    std::size_t strictRank = 0;
    eval::ErrorCategories categories;
    /// Properties of the mention itself, the same in every run (the multi-run comparison's
    /// groups): BELHD's homonym-affected flag when computed, and whether the preprocessing
    /// replaced a short form.
    std::optional<bool> homonymAffected;
    bool abbreviationExpanded = false;

    bool correct() const noexcept { return rank == 1; }
};

struct EvaluationRun {
    QString name;  ///< what the dock calls it ("sparse on test", the file's name)
    eval::EvalResult result;
    std::vector<EvaluatedMention> mentions;  ///< same order as result.mentions
    /// k up to which recall@k is known: the ranking depth, or for a per-mention file the
    /// number of predictions it saved per part (recall beyond them cannot be counted).
    std::size_t curveDepth = 0;
};

struct SparseEvaluationOptions {
    std::string split = "test";
    bool homonymExpansion = false;  ///< BELHD's expanded KB names in the dictionary
};

/// The splits a sparse evaluation can run on: every split of the project but "train" (which
/// feeds the dictionary), in project order.
std::vector<std::string> evaluableSplits(const LoadedProject& project);

/// Ranks the split's mentions with BioSyn's sparse linker (see the header comment). Throws
/// Error for an unknown split, Cancelled when `progress` asks.
EvaluationRun evaluateProjectSparse(const LoadedProject& project, const SparseEvaluationOptions& options,
                                    const ProgressSink& progress = {});

struct RunEvaluationOptions {
    std::filesystem::path run;  ///< a training run directory
    std::string split = "test";
    bool knn = false;               ///< interpolate with the training mentions' datastore
    bool homonymExpansion = false;  ///< on anyway when the run's preset trains on the expanded KB
    bool cpuOnly = false;
};

/// Ranks the split's mentions with a trained run (same dictionary and queries as the sparse
/// source, the method's inputs and similarity). Needs LibTorch: Error without it, and when the
/// folder holds no model. Cancelled when `progress` asks.
EvaluationRun evaluateProjectRun(const LoadedProject& project, const RunEvaluationOptions& options,
                                 const ProgressSink& progress = {});

/// Reads a per-mention file. `project` (may be null) resolves each document's split and gives
/// the KB for the categories that need it. Throws ParseError naming the file and line.
EvaluationRun loadPerMentionRun(const std::filesystem::path& file, const LoadedProject* project);

}  // namespace linkscope::ui
