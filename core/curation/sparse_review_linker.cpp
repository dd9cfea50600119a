#include "curation/sparse_review_linker.h"

#include <algorithm>
#include <cctype>

#include "curation/sparse_candidates.h"
#include "util/error.h"

namespace linkscope::curation {

std::vector<ReviewMention> reviewMentionsOf(std::span<const eval::EvalQuery> queries) {
    std::vector<ReviewMention> mentions;
    mentions.reserve(queries.size());
    for (const eval::EvalQuery& query : queries) {
        ReviewMention mention;
        mention.document = query.document;
        bool space = false;
        for (const char c : query.mention) {
            if (std::isspace(static_cast<unsigned char>(c))) {
                space = !mention.surface.empty();
                continue;
            }
            if (space) mention.surface += ' ';
            space = false;
            mention.surface += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        mention.gold = query.goldIds;
        mentions.push_back(std::move(mention));
    }
    return mentions;
}

ReviewSignals sparseSignals(const SparseCandidates& sparse, const eval::EvalQuery& query) {
    ReviewSignals signals;
    bool first = true;
    for (const std::string& part : query.parts) {
        const auto rows = sparse.rank(part, 2);
        if (rows.empty()) return ReviewSignals{};  // a part without any candidate: no proposal
        const double margin = rows.size() > 1 ? rows[0].score - rows[1].score : rows[0].score;
        signals.margin = first ? margin : std::min(signals.margin, margin);
        signals.confidence = first ? rows[0].score : std::min(signals.confidence, rows[0].score);
        if (!first) signals.proposal += '|';
        signals.proposal += rows[0].entity;
        first = false;
    }
    return signals;
}

SparseReviewLinker::SparseReviewLinker(const SparseCandidates& sparse, std::span<const eval::EvalQuery> queries,
                                       const ProgressSink& progress) {
    signals_.reserve(queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
        if (q % 64 == 0) {
            progress.checkCancelled();
            progress("Ranking mentions (sparse)", static_cast<double>(q) / static_cast<double>(queries.size()));
        }
        signals_.push_back(sparseSignals(sparse, queries[q]));
    }
    progress("Ranking mentions (sparse)", 1.0);
}

ReviewSignals SparseReviewLinker::signals(std::size_t mention) const {
    if (mention >= signals_.size())
        throw Error("sparse review linker: mention " + std::to_string(mention) + " of " +
                    std::to_string(signals_.size()));
    return signals_[mention];
}

}  // namespace linkscope::curation
