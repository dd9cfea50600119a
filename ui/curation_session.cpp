#include "curation_session.h"

#include <string>

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

DocumentReview CurationSession::review(const std::string& split, const Document& document) const {
    return reviewDocument(decisions_, rankers_, split, document);
}

}  // namespace linkscope::ui
