#include "curation_session.h"

#include <string>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "eval/gold_agreement.h"

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
        // The link in effect against the gold ids, by the exact rule (eval/gold_agreement.h).
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
        if (!eval::linkAgreesExactly(link, mention.ids)) ++review.disagreements;
    }
    return review;
}

}  // namespace linkscope::ui
