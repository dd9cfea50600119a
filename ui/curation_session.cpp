#include "curation_session.h"

#include <string>
#include <utility>
#include <vector>

namespace linkscope::ui {

CurationSession::CurationSession(QObject* parent) : QObject(parent) {
    // The link a mention without a decision has is the active ranker's proposal.
    decisions_.setProposedLink([this](const project::MentionKey& key, const Mention& mention,
                                      const std::vector<curation::CandidateRow>* ranked) {
        return rankers_.proposedLink(key, mention, ranked);
    });
    connect(&decisions_, &DecisionLog::errorOccurred, this, &CurationSession::errorOccurred);
    connect(&rankers_, &RankerHost::errorOccurred, this, &CurationSession::errorOccurred);
}

CurationSession::~CurationSession() { close(); }

QString CurationSession::open(std::shared_ptr<const LoadedProject> project, const QString& projectFile,
                              OpenedTeamStore opened) {
    close();
    if (QString error = decisions_.open(project, projectFile, std::move(opened)); !error.isEmpty()) return error;
    rankers_.open(std::move(project));
    live_.start();
    claims_.start();
    return {};
}

void CurationSession::close() {
    claims_.stop();
    live_.stop();
    merge_.cancelAndWait();
    rankers_.close();
    decisions_.close();
}

}  // namespace linkscope::ui
