#include "curation/proposal_ranking.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <span>

#include "corpus/corpus.h"
#include "curation/sparse_candidates.h"
#include "project/loaded_project.h"

namespace linkscope::curation {

struct ProposalRanking::State {
    State(const LoadedProject& p, const SparseCandidates& r, const std::map<project::MentionKey, std::string>& e)
        : project(p), ranker(r), expansions(e) {}
    const LoadedProject& project;
    const SparseCandidates& ranker;
    const std::map<project::MentionKey, std::string>& expansions;
    /// Every document in project order: (split index, document index).
    std::vector<std::pair<std::size_t, std::size_t>> documents;
    /// (split name, PMID) -> position in `documents`; read-only after construction.
    std::map<std::pair<std::string, std::string>, std::size_t> positionOf;
    std::mutex wantedMutex;
    std::deque<std::size_t> wanted;  ///< positions asked for, oldest first
};

ProposalRanking::ProposalRanking(const LoadedProject& project, const SparseCandidates& ranker,
                                 const std::map<project::MentionKey, std::string>& expansions)
    : state_(std::make_unique<State>(project, ranker, expansions)) {
    for (std::size_t s = 0; s < project.splits.size(); ++s) {
        const auto documents = project.splits[s].corpus.documents();
        for (std::size_t d = 0; d < documents.size(); ++d) {
            state_->positionOf.try_emplace({project.splits[s].split, documents[d].pmid()}, state_->documents.size());
            state_->documents.emplace_back(s, d);
        }
    }
}

ProposalRanking::~ProposalRanking() = default;

void ProposalRanking::prioritize(const std::string& split, const std::string& document) {
    const auto found = state_->positionOf.find({split, document});
    if (found == state_->positionOf.end()) return;
    const std::lock_guard lock(state_->wantedMutex);
    state_->wanted.push_back(found->second);
}

void ProposalRanking::run(const std::function<void(Batch&&)>& deliver, const ProgressSink& progress,
                          std::size_t batchMentions) {
    State& state = *state_;
    const auto documentAt = [&](std::size_t position) -> const Document& {
        const auto [split, document] = state.documents[position];
        return state.project.splits[split].corpus.documents()[document];
    };
    std::size_t total = 0;
    for (std::size_t position = 0; position < state.documents.size(); ++position)
        total += documentAt(position).mentions.size();
    std::vector<char> ranked(state.documents.size(), 0);
    std::size_t done = 0;

    std::vector<project::MentionKey> keys;
    std::vector<std::string> texts;
    const auto rankDocuments = [&](std::span<const std::size_t> positions) {
        keys.clear();
        texts.clear();
        for (const std::size_t position : positions) {
            const std::string& split = state.project.splits[state.documents[position].first].split;
            const Document& document = documentAt(position);
            for (const Mention& mention : document.mentions) {
                project::MentionKey key{split, document.pmid(), mention.start, mention.end};
                const auto expanded = state.expansions.find(key);
                texts.push_back(expanded != state.expansions.end() ? expanded->second : mention.text);
                keys.push_back(std::move(key));
            }
        }
        const auto rows = state.ranker.rankAll(texts, 2);
        Batch batch;
        batch.reserve(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
            MentionProposal proposal;
            if (!rows[i].empty()) {
                proposal.entity = rows[i][0].entity;
                proposal.score = rows[i][0].score;
                proposal.margin = rows[i].size() > 1 ? rows[i][0].score - rows[i][1].score : rows[i][0].score;
            }
            batch.emplace_back(std::move(keys[i]), std::move(proposal));
        }
        done += batch.size();
        if (!batch.empty()) deliver(std::move(batch));
        progress.checkCancelled();
        progress("Ranking every mention",
                 static_cast<double>(done) / static_cast<double>(std::max<std::size_t>(total, 1)));
    };
    const auto takeWanted = [&]() -> std::optional<std::size_t> {
        const std::lock_guard lock(state.wantedMutex);
        while (!state.wanted.empty()) {
            const std::size_t position = state.wanted.front();
            state.wanted.pop_front();
            if (!ranked[position]) return position;
        }
        return std::nullopt;
    };

    std::size_t cursor = 0;
    std::vector<std::size_t> batch;
    for (;;) {
        if (const auto wanted = takeWanted()) {
            ranked[*wanted] = 1;
            rankDocuments(std::span(&*wanted, 1));
            continue;
        }
        while (cursor < state.documents.size() && ranked[cursor]) ++cursor;
        if (cursor == state.documents.size()) break;
        batch.clear();
        std::size_t mentions = 0;
        for (; cursor < state.documents.size() && mentions < batchMentions; ++cursor) {
            if (ranked[cursor]) continue;
            ranked[cursor] = 1;
            batch.push_back(cursor);
            mentions += documentAt(cursor).mentions.size();
        }
        rankDocuments(batch);
    }
}

}  // namespace linkscope::curation
