#pragma once
// The simulated review (review_walk.h) with a trained run and its datastore, as the GUI links
// once a run is trained: the run's ranking combined with the datastore (kNN-BioEL's
// interpolation or a sieve; augmented_linker.h), every decision added to the datastore at once
// (feedback_loop.h), so that it moves the proposals of the mentions it reaches.
//
// The queue's signals (review_queue.h) from the run:
//   proposal, margin, confidence  the datastore-linked ranking: the parts' top entities joined
//                                 by '|', the smallest lead of the first over the second entity
//                                 and the smallest top score among the parts (kNN: p, a
//                                 probability; sieve: a cosine);
//   others                        the proposals of the project's other linkers, given per
//                                 mention (the CLI gives sparse TF-IDF and the run without its
//                                 datastore; neither learns from a decision, so they are fixed);
//   reach                         the mentions a decision's key would reach in the datastore
//                                 (retrieval/datastore_reach.h: those whose k nearest keys it
//                                 would enter). A mention's key is its vector (its first part's:
//                                 a composite of several parts adds no key, as the GUI does,
//                                 training_datastore.h), so the reach is known before the
//                                 decision, whatever entity it links to.
//
// Within the walk no key is removed, so the reach's thresholds only rise: each mention's list of
// targets above its initial thresholds is computed once (one pass over all pairs) and filtered
// by the current thresholds when asked.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "curation/review_walk.h"
#include "eval/queries.h"
#include "util/progress.h"

namespace linkscope::retrieval {
class KnnDatastore;
}

namespace linkscope::curation {

class AugmentedLinker;

class RunReviewLinker : public ReviewLinker {
public:
    using InputFn = std::function<std::string(const eval::EvalQuery&, std::size_t)>;

    /// linker must link with `datastore` (knn or sieve mode; in model mode decisions reach
    /// nothing); both, and the queries, must outlive this object. input: the method's input of
    /// a query part (eval::EvalOptions::partText). otherProposals: per other linker, one
    /// proposal per query (parts' top entities joined by '|'); Error when a list's size differs
    /// from the queries'. Encodes and ranks every query (progress "Ranking mentions (run)";
    /// Cancelled).
    RunReviewLinker(const AugmentedLinker& linker, retrieval::KnnDatastore& datastore,
                    std::span<const eval::EvalQuery> queries, const InputFn& input,
                    std::vector<std::vector<std::string>> otherProposals, const ProgressSink& progress = {});
    ~RunReviewLinker() override;

    std::size_t size() const override;
    ReviewSignals signals(std::size_t mention) const override;
    std::size_t reach(std::size_t mention, std::span<const std::uint8_t> decided, bool exceptIdentical) const override;
    /// Adds a key per decided id (as a correction, or an accept when `accept`) for a mention of
    /// one part, and ranks the mentions the key reached again. Returns them.
    std::vector<std::size_t> decide(std::size_t mention, std::span<const std::string> ids, bool accept) override;
    /// Removes the keys decide() added and ranks every mention again.
    void reset() override;

    /// Keys added by decide() since construction or the last reset().
    std::size_t keysAdded() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::curation
