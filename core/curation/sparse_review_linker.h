#pragma once
// The simulated review (review_walk.h) with the GUI's linker before any model is trained: sparse
// TF-IDF over the KB's homonym-expanded names (sparse_candidates.h), each query part ranked on
// its own. It does not learn from decisions, so only "apply to all identical mentions" carries a
// decision beyond its mention; the queue's doubt is the margin alone (there is no other linker).
#include <cstddef>
#include <span>
#include <vector>

#include "curation/review_walk.h"
#include "eval/queries.h"
#include "util/progress.h"

namespace linkscope::curation {

class SparseCandidates;

/// The walk's mentions from evaluation queries: the surface is the mention as written, lower
/// case with runs of white space made one space (the GUI's "same text, ignoring case and
/// spacing"), the gold its KB ids.
std::vector<ReviewMention> reviewMentionsOf(std::span<const eval::EvalQuery> queries);

/// A query's signals from the sparse ranker: the parts' top entities joined by '|', the margin
/// the smallest lead over the second entity among the parts (a part alone in its list leads by
/// its score).
ReviewSignals sparseSignals(const SparseCandidates& sparse, const eval::EvalQuery& query);

class SparseReviewLinker : public ReviewLinker {
public:
    /// Ranks every query once (progress "Ranking mentions (sparse)"; Cancelled). `sparse` is
    /// only read while constructing.
    SparseReviewLinker(const SparseCandidates& sparse, std::span<const eval::EvalQuery> queries,
                       const ProgressSink& progress = {});
    std::size_t size() const override { return signals_.size(); }
    ReviewSignals signals(std::size_t mention) const override;

private:
    std::vector<ReviewSignals> signals_;
};

}  // namespace linkscope::curation
