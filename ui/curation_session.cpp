#include "curation_session.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/mention.h"

namespace linkscope::ui {

CurationSession::CurationSession(QObject* parent) : QObject(parent) {
    // The link a mention without a decision has is the active ranker's proposal.
    decisions_.setProposedLink([this](const project::MentionKey& key, const Mention& mention,
                                      const std::vector<curation::CandidateRow>* ranked) {
        return rankers_.proposedLink(key, mention, ranked);
    });
    connect(&decisions_, &DecisionLog::decisionChanged, this, &CurationSession::decisionChanged);
    connect(&decisions_, &DecisionLog::decisionsReloaded, this, &CurationSession::decisionsReloaded);
    connect(&decisions_, &DecisionLog::errorOccurred, this, &CurationSession::errorOccurred);
    connect(&merge_, &MergeJob::progress, this, &CurationSession::mergeProgress);
    connect(&merge_, &MergeJob::finished, this, &CurationSession::mergeFinished);
    connect(&rankers_, &RankerHost::rankerReady, this, &CurationSession::candidatesReady);
    connect(&rankers_, &RankerHost::proposalsReady, this, &CurationSession::proposalsReady);
    connect(&rankers_, &RankerHost::proposalsRanked, this, &CurationSession::proposalsRanked);
    connect(&rankers_, &RankerHost::proposalsComplete, this, &CurationSession::proposalsComplete);
    connect(&rankers_, &RankerHost::rankerProgress, this, &CurationSession::candidatesProgress);
    connect(&rankers_, &RankerHost::errorOccurred, this, &CurationSession::errorOccurred);
    connect(&rankers_, &RankerHost::runLinked, this, &CurationSession::runLinked);
    connect(&rankers_, &RankerHost::runLinkingCancelled, this, &CurationSession::runLinkingCancelled);
    connect(&rankers_, &RankerHost::sparseLinked, this, &CurationSession::sparseLinked);
    connect(&rankers_, &RankerHost::rankingsChanged, this, &CurationSession::rankingsChanged);
}

CurationSession::~CurationSession() { close(); }

QString CurationSession::open(std::shared_ptr<const LoadedProject> project, const QString& projectFile) {
    close();
    if (QString error = decisions_.open(project, projectFile); !error.isEmpty()) return error;
    rankers_.open(std::move(project));
    return {};
}

void CurationSession::close() {
    merge_.cancelAndWait();
    rankers_.close();
    decisions_.close();
}

namespace {
// Ids as a sorted set, so "A|B" and "B|A" agree.
std::vector<std::string> idSet(std::string_view joined) {
    std::vector<std::string> ids;
    std::size_t start = 0;
    while (start <= joined.size()) {
        const std::size_t bar = joined.find('|', start);
        const std::string_view id =
            joined.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
        if (!id.empty()) ids.emplace_back(id);
        if (bar == std::string_view::npos) break;
        start = bar + 1;
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}
}  // namespace

CurationSession::DocumentReview CurationSession::review(const std::string& split, const Document& document) const {
    DocumentReview review;
    for (const Mention& mention : document.mentions) {
        ++review.mentions;
        const project::MentionKey key{split, document.pmid(), mention.start, mention.end};
        const auto& inEffect = decisions_.decisionsInEffect();
        const auto decision = inEffect.find(key);
        const bool decided = decision != inEffect.end();
        if (decided) ++review.reviewed;
        const std::optional<Proposal> proposed = rankers_.proposal(key);
        if (!decided && proposed && rankers_.lowConfidence(*proposed)) ++review.lowConfidence;
        // The link in effect against the gold ids (CUI-less gold is "-1", like a NIL decision).
        std::string link;
        if (decided) {
            if (const auto decidedTo = project::decidedLink(decision->second))
                link = *decidedTo;
            else if (proposed)
                link = proposed->entity;
        } else if (proposed) {
            link = proposed->entity;
        } else {
            continue;  // nothing known yet
        }
        std::vector<std::string> gold = mention.ids.ids;
        if (mention.ids.cuiLess) gold = {"-1"};
        std::sort(gold.begin(), gold.end());
        if (idSet(link) != gold) ++review.disagreements;
    }
    return review;
}

}  // namespace linkscope::ui
