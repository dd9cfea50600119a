#pragma once
// Every mention's proposal from the sparse ranker (what the GUI's review filters and figures
// read), ranked on a worker in batches of whole documents, the documents a user asks for first.
//
// Why batches and an order: at MedMentions + UMLS size ranking the 350,000 mentions takes
// minutes. Handed over in one piece at the end, the proposals arrived only when all were done and
// every document's review figures were recomputed at once, stalling the GUI beyond its 100 ms
// (benchmarks/ui_stall, "proposals for every mention"). Handed
// over a batch at a time, each batch refreshes only its own documents, and the document a curator
// opens is ranked next (prioritize()), within one batch's time, not at its turn in project order.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "project/curation_decision.h"
#include "util/progress.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::curation {

class SparseCandidates;

/// A mention's top entity: what the ranker proposes when nothing was decided.
struct MentionProposal {
    std::string entity;  ///< "" when nothing was ranked
    double score = 0.0;
    double margin = 0.0;  ///< the lead over the second entity (the score when alone)
};

class ProposalRanking {
public:
    using Batch = std::vector<std::pair<project::MentionKey, MentionProposal>>;

    /// Ranks the mentions of `project` with `ranker`; a mention found in `expansions` is ranked
    /// by that text (its abbreviation expanded), any other by its own. All three must outlive run().
    ProposalRanking(const LoadedProject& project, const SparseCandidates& ranker,
                    const std::map<project::MentionKey, std::string>& expansions);
    ~ProposalRanking();
    ProposalRanking(const ProposalRanking&) = delete;
    ProposalRanking& operator=(const ProposalRanking&) = delete;

    /// Asks for a document (split name, PMID) to be ranked next, if it is not yet. Safe from any
    /// thread while run() runs; an unknown document is ignored.
    void prioritize(const std::string& split, const std::string& document);

    /// Ranks every mention once, in batches of whole documents of about `batchMentions` mentions
    /// (a document asked for is a batch of its own, taken before the next batch), and hands each
    /// batch to `deliver` on this thread. Progress after each batch; throws Cancelled when
    /// `progress` asks to stop (the delivered batches stay delivered).
    void run(const std::function<void(Batch&&)>& deliver, const ProgressSink& progress = {},
             std::size_t batchMentions = 1024);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::curation
