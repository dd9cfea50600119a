#pragma once
// The curation of an open project, on the GUI thread: the owner of its three parts and the one
// place that opens and closes them together.
// - decisions(): the decision log (decision_log.h): the project file, the decisions in effect,
//   undo and redo; the one entry for every decision.
// - rankers(): the ranker host (ranker_host.h): the sparse ranker, a linked trained run, the
//   proposals, and the run's datastore, which follows the log's decisions.
// - merge(): merging another curator's file (merge_job.h), recorded through the log.
// The methods and signals below the accessors forward to those parts under their former names,
// for the views that still call them here.
#include <QObject>
#include <QString>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "curation/candidate_row.h"
#include "decision_log.h"
#include "document_review.h"
#include "merge_job.h"
#include "project/curation_decision.h"
#include "ranker_host.h"

class QUndoStack;

namespace linkscope {
class Document;
struct LoadedProject;
struct Mention;
namespace project {
class ProjectStore;
}
namespace curation {
class SparseCandidates;
class ModelCandidates;
enum class LinkMode;
}  // namespace curation
}  // namespace linkscope

namespace linkscope::ui {

class CurationSession : public QObject {
    Q_OBJECT
public:
    explicit CurationSession(QObject* parent = nullptr);
    ~CurationSession() override;

    DecisionLog* decisions() { return &decisions_; }
    const DecisionLog* decisions() const { return &decisions_; }
    RankerHost* rankers() { return &rankers_; }
    const RankerHost* rankers() const { return &rankers_; }
    MergeJob* merge() { return &merge_; }

    /// See DecisionLog::projectFileForManifest.
    static QString projectFileForManifest(const QString& manifestPath) {
        return DecisionLog::projectFileForManifest(manifestPath);
    }

    /// Opens (or creates from the project's manifest) the project file and rebuilds the undo
    /// stack from it; starts building the sparse ranker. Returns an error message, empty on
    /// success.
    QString open(std::shared_ptr<const LoadedProject> project, const QString& projectFile);
    /// Stops the merge and the rankers' workers, then closes the project file.
    void close();

    /// See reviewDocument (document_review.h).
    using DocumentReview = ui::DocumentReview;
    DocumentReview review(const std::string& split, const Document& document) const;

    // --- forwarded to decisions() ----------------------------------------------------------------
    using MentionRef = ui::MentionRef;
    bool isOpen() const { return decisions_.isOpen(); }
    QString projectFile() const { return decisions_.projectFile(); }
    QUndoStack* undoStack() const { return decisions_.undoStack(); }
    project::ProjectStore* store() const { return decisions_.store(); }
    const LoadedProject* project() const { return decisions_.project(); }
    QString curator() const { return decisions_.curator(); }
    void setCurator(const QString& name) { decisions_.setCurator(name); }
    int reviewedIn(const std::string& split) const { return decisions_.reviewedIn(split); }
    std::optional<project::Decision> currentDecision(const project::MentionKey& key) const {
        return decisions_.currentDecision(key);
    }
    std::string linkInEffect(const project::MentionKey& key, const Mention& mention,
                             const std::vector<curation::CandidateRow>* ranked = nullptr) const {
        return decisions_.linkInEffect(key, mention, ranked);
    }
    bool decide(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                const std::string& newLink = {}) {
        return decisions_.decide(key, mention, kind, newLink);
    }
    std::vector<MentionRef> sameSurface(const project::MentionKey& key, const Mention& mention,
                                        const std::string& link) const {
        return decisions_.sameSurface(key, mention, link);
    }
    int decideAll(const std::vector<MentionRef>& mentions, project::DecisionKind kind, const std::string& newLink) {
        return decisions_.decideAll(mentions, kind, newLink);
    }
    bool adjudicate(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                    const std::string& newLink = {}) {
        return decisions_.adjudicate(key, mention, kind, newLink);
    }

    // --- forwarded to rankers() ------------------------------------------------------------------
    using Proposal = RankerHost::Proposal;
    using MoveRef = RankerHost::MoveRef;
    bool candidatesAvailable() const { return rankers_.sparseRankerBuilt(); }
    std::shared_ptr<const curation::SparseCandidates> sparseCandidates() const { return rankers_.sparseRanker(); }
    std::vector<curation::CandidateRow> candidates(const project::MentionKey& key, const Mention& mention,
                                                   std::size_t k = 20) const {
        return rankers_.rankCandidates(key, mention, k);
    }
    std::string proposedLink(const project::MentionKey& key, const Mention& mention,
                             const std::vector<curation::CandidateRow>* ranked = nullptr) const {
        return rankers_.proposedLink(key, mention, ranked);
    }
    static bool runLinkingAvailable() { return RankerHost::runLinkingAvailable(); }
    void linkWithRun(const QString& runDirectory, curation::LinkMode mode) { rankers_.linkWithRun(runDirectory, mode); }
    void cancelRunLinking() { rankers_.cancelRunLinking(); }
    bool runLinkingUnderWay() const { return rankers_.runLinkingUnderWay(); }
    bool rerankPending() const { return rankers_.rerankPending(); }
    const std::vector<project::MentionKey>& changedByLastDecision() const { return rankers_.changedByLastDecision(); }
    void linkWithSparse() { rankers_.linkWithSparse(); }
    const curation::ModelCandidates* runLinking() const { return rankers_.runRanker(); }
    std::shared_ptr<const curation::ModelCandidates> sharedRunLinking() const { return rankers_.sharedRunRanker(); }
    QString rankerDescription() const { return rankers_.rankerDescription(); }
    bool proposalsAvailable() const { return rankers_.proposalsAvailable(); }
    std::size_t proposalsKnown() const { return rankers_.proposalsKnown(); }
    void prioritizeDocument(const std::string& split, const std::string& document) {
        rankers_.prioritizeDocument(split, document);
    }
    std::optional<Proposal> proposal(const project::MentionKey& key) const { return rankers_.proposal(key); }
    std::optional<Proposal> sparseProposal(const project::MentionKey& key) const {
        return rankers_.sparseProposal(key);
    }
    static bool lowSparseConfidence(const Proposal& proposal) { return RankerHost::lowSparseConfidence(proposal); }
    bool lowConfidence(const Proposal& proposal) const { return rankers_.lowConfidence(proposal); }
    std::vector<MoveRef> datastoreMoves(const project::MentionKey& key, const std::string& entity) {
        return rankers_.datastoreMoves(key, entity);
    }
    std::optional<std::map<project::MentionKey, std::size_t>> datastoreReachCounts() const {
        return rankers_.datastoreReachCounts();
    }
    const Mention* mentionOf(const project::MentionKey& key) const { return rankers_.mentionOf(key); }

    // --- forwarded to merge() --------------------------------------------------------------------
    bool startMerge(const QString& file) { return merge_.start(file); }
    void cancelMerge() { merge_.cancel(); }
    bool mergeUnderWay() const { return merge_.isUnderWay(); }

Q_SIGNALS:
    // Forwarded from the parts: decisionChanged, decisionsReloaded and errorOccurred from
    // decisions(); mergeProgress and mergeFinished from merge(); the rest (and errorOccurred)
    // from rankers(), where candidatesReady is rankerReady and candidatesProgress rankerProgress.
    void decisionChanged(const linkscope::project::MentionKey& key);
    void decisionsReloaded();
    void mergeProgress(int percent);
    void mergeFinished(const QString& summary, const QString& error);
    void candidatesReady();
    void proposalsReady();
    void proposalsRanked(const std::vector<linkscope::project::MentionKey>& mentions);
    void proposalsComplete();
    void candidatesProgress(const QString& stage, int percent);
    void errorOccurred(const QString& message);
    void runLinked();
    void runLinkingCancelled();
    void sparseLinked();
    void rankingsChanged(const std::vector<linkscope::project::MentionKey>& reranked, int topChanged);

private:
    // In this order: the host follows the log, the merge records through it; members are
    // destroyed in reverse, each after the parts that use it.
    DecisionLog decisions_;
    RankerHost rankers_{decisions_};
    MergeJob merge_{decisions_};
};

}  // namespace linkscope::ui
