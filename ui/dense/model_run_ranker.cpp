#include "model_run_ranker.h"

#include <utility>

#include "curation/model_candidates.h"

namespace linkscope::ui {

ModelRunRanker::ModelRunRanker(std::shared_ptr<curation::ModelCandidates> model) : model_(std::move(model)) {}

std::string ModelRunRanker::description() const { return model_->description(); }

std::string ModelRunRanker::runName() const { return model_->runName(); }

std::size_t ModelRunRanker::datastoreKeys() const { return model_->datastoreKeys(); }

std::size_t ModelRunRanker::curatorKeys() const { return model_->curatorKeys(); }

bool ModelRunRanker::knows(const project::MentionKey& mention) const { return model_->knows(mention); }

std::vector<curation::CandidateRow> ModelRunRanker::rank(const project::MentionKey& mention, std::size_t k) {
    return model_->rank(mention, k);
}

std::optional<RunRanker::Proposal> ModelRunRanker::proposal(const project::MentionKey& mention) const {
    const curation::TopProposal* top = model_->proposal(mention);
    if (!top) return std::nullopt;
    return Proposal{top->entity, top->score, top->margin};
}

bool ModelRunRanker::lowConfidence(const Proposal& proposal) const {
    return model_->lowConfidence({proposal.entity, proposal.score, proposal.margin});
}

std::vector<project::MentionKey> ModelRunRanker::feed(const project::Decision& decision) {
    return model_->feed(decision);
}

std::vector<project::MentionKey> ModelRunRanker::unfeed(std::int64_t decisionId) { return model_->unfeed(decisionId); }

RunRanker::Changes ModelRunRanker::rerank(std::span<const project::MentionKey> mentions) {
    curation::ProposalChanges changes = model_->rerank(mentions);
    return Changes{std::move(changes.reranked), std::move(changes.topChanged)};
}

std::vector<std::int64_t> ModelRunRanker::fedDecisions() const { return model_->fedDecisions(); }

std::vector<project::MentionKey> ModelRunRanker::reachOf(const project::MentionKey& mention) const {
    return model_->reachOf(mention);
}

std::vector<RunRanker::Move> ModelRunRanker::wouldMove(const project::MentionKey& mention, const std::string& entity) {
    std::vector<Move> moves;
    for (auto& move : model_->wouldMove(mention, entity))
        moves.push_back({std::move(move.mention), std::move(move.before), std::move(move.after)});
    return moves;
}

std::optional<std::map<project::MentionKey, std::size_t>> ModelRunRanker::reachCounts(
    const std::function<bool(const project::MentionKey&)>& decided) const {
    return model_->reachCounts(decided);
}

curation::TextEmbedding ModelRunRanker::textEmbedding() const {
    return curation::ModelCandidates::textEmbedding(model_);
}

}  // namespace linkscope::ui
