#pragma once
// The GUI's RunRanker (ui/run_ranker.h) over the dense engine's curation::ModelCandidates.
#include <memory>

#include "run_ranker.h"

namespace linkscope::curation {
class ModelCandidates;
}

namespace linkscope::ui {

class ModelRunRanker final : public RunRanker {
public:
    explicit ModelRunRanker(std::shared_ptr<curation::ModelCandidates> model);

    std::string description() const override;
    std::string runName() const override;
    std::size_t datastoreKeys() const override;
    std::size_t curatorKeys() const override;
    bool knows(const project::MentionKey& mention) const override;
    std::vector<curation::CandidateRow> rank(const project::MentionKey& mention, std::size_t k) override;
    std::optional<Proposal> proposal(const project::MentionKey& mention) const override;
    bool lowConfidence(const Proposal& proposal) const override;
    std::vector<project::MentionKey> feed(const project::Decision& decision) override;
    std::vector<project::MentionKey> unfeed(std::int64_t decisionId) override;
    Changes rerank(std::span<const project::MentionKey> mentions) override;
    std::vector<std::int64_t> fedDecisions() const override;
    std::vector<project::MentionKey> reachOf(const project::MentionKey& mention) const override;
    std::vector<Move> wouldMove(const project::MentionKey& mention, const std::string& entity) override;
    std::optional<std::map<project::MentionKey, std::size_t>> reachCounts(
        const std::function<bool(const project::MentionKey&)>& decided) const override;
    curation::TextEmbedding textEmbedding() const override;

private:
    std::shared_ptr<curation::ModelCandidates> model_;
};

}  // namespace linkscope::ui
