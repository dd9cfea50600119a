#pragma once
// A trained run's ranker of every mention of an open project, fed by the curator's decisions
// (curation::ModelCandidates of the dense engine behind it, in the dense module: see
// dense_engine.h). The GUI holds it through this class only, so that no code of the window
// needs LibTorch. Built on a worker, then used from the GUI thread; textEmbedding()'s function
// may run on another thread.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "curation/candidate_row.h"
#include "curation/entity_neighbourhood.h"
#include "project/curation_decision.h"

namespace linkscope::ui {

class RunRanker {
public:
    virtual ~RunRanker() = default;

    /// A mention's top entity as last ranked.
    struct Proposal {
        std::string entity;  ///< "" when nothing was ranked
        double score = 0.0;
        double margin = 0.0;  ///< its lead over the second entity (its score when alone)
    };
    /// What ranking mentions again changed.
    struct Changes {
        std::vector<project::MentionKey> reranked;
        std::vector<project::MentionKey> topChanged;  ///< of those, the ones with another top entity
    };
    /// A mention whose proposal a decision would move, with its proposal now and after.
    struct Move {
        project::MentionKey mention;
        std::string before;
        std::string after;
    };

    /// "triplet (run NAME), kNN interpolation over 5,131 keys".
    virtual std::string description() const = 0;
    virtual std::string runName() const = 0;
    /// Keys in the datastore, and of those the ones the curator's decisions added.
    virtual std::size_t datastoreKeys() const = 0;
    virtual std::size_t curatorKeys() const = 0;

    virtual bool knows(const project::MentionKey& mention) const = 0;
    /// The top k entities of a mention with the datastore as it is now.
    virtual std::vector<curation::CandidateRow> rank(const project::MentionKey& mention, std::size_t k) = 0;
    virtual std::optional<Proposal> proposal(const project::MentionKey& mention) const = 0;
    /// Low confidence by the run's own measure (curation::ModelCandidates::lowConfidence).
    virtual bool lowConfidence(const Proposal& proposal) const = 0;

    /// A decision in effect becomes keys; returns the mentions to rank again (rerank()).
    virtual std::vector<project::MentionKey> feed(const project::Decision& decision) = 0;
    /// A decision's keys taken back (undo); returns the mentions to rank again.
    virtual std::vector<project::MentionKey> unfeed(std::int64_t decisionId) = 0;
    virtual Changes rerank(std::span<const project::MentionKey> mentions) = 0;
    /// The decisions whose keys are in the datastore, by id.
    virtual std::vector<std::int64_t> fedDecisions() const = 0;
    /// The other mentions a decision on `mention` would reach through its key, whatever entity.
    virtual std::vector<project::MentionKey> reachOf(const project::MentionKey& mention) const = 0;
    /// Before a decision linking `mention` to `entity`: the mentions whose top entity it would move.
    virtual std::vector<Move> wouldMove(const project::MentionKey& mention, const std::string& entity) = 0;
    /// The review queue's reach of every mention (unset without a datastore, or too many mentions).
    virtual std::optional<std::map<project::MentionKey, std::size_t>> reachCounts(
        const std::function<bool(const project::MentionKey&)>& decided) const = 0;
    /// The run's vectors of free texts, for the embedding plot; the function keeps the model alive.
    virtual curation::TextEmbedding textEmbedding() const = 0;
};

}  // namespace linkscope::ui
