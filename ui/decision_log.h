#pragma once
// The curation decisions of an open project, on the GUI thread: the project file
// (core/project/project_store.h), the decisions in effect read from it, and the QUndoStack that
// mirrors its undo history. It is the one entry for every decision: one made here (decide,
// decideAll, adjudicate), its undo and redo, and decisions written into the file elsewhere (a
// merge of another curator's file, readBackStore and readBackFrom). Each change of the decision
// in effect on a mention is announced the same way (decisionInEffectReplaced), whichever way it
// came, so that whoever follows the decisions (the ranker host's datastore) needs no second path.
//
// Every decision goes to the project file first and is shown as done only after the store's
// transaction has committed: decide() returns once it is on disk, and decisionChanged is emitted
// after that. Undo and redo are state changes in the store, so the QUndoStack is rebuilt from
// the store when a project is reopened and undo goes on where the last session stopped.
//
// A project on a server (a team): the store's address is a postgresql:// URI. The undo stack
// holds this login's decisions only (each login undoes its own), other curators' decisions come
// in through applyRemote (team_live_updates.h) and are announced as a local one is. A refused
// action (the server's row-level security, a race with another curator's decision on the
// mention, a lost connection) is reported in plain words and changes nothing: no decision in
// effect, no undo step. While the connection is lost the log is read-only (setReadOnly): every
// decision and undo is refused at once, never queued.
#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "curation/candidate_row.h"
#include "project/curation_decision.h"
#include "team_project_open.h"

class QUndoStack;

namespace linkscope {
struct LoadedProject;
struct Mention;
namespace project {
class ProjectStore;
}
}  // namespace linkscope

namespace linkscope::ui {

/// A mention of the project, by key, with the mention itself (owned by the project).
struct MentionRef {
    project::MentionKey key;
    const Mention* mention = nullptr;
};

class DecisionLog : public QObject {
    Q_OBJECT
public:
    explicit DecisionLog(QObject* parent = nullptr);
    ~DecisionLog() override;

    /// The project file kept for a manifest: <app data>/projects/<manifest stem>-<hash of its
    /// absolute path>.linkscope, so that opening the same manifest again finds its decisions and
    /// a read-only installation (the demo project) still gets a writable file.
    static QString projectFileForManifest(const QString& manifestPath);

    /// Where a project opened as `opened` keeps its decisions: a project file or a server
    /// address as it is, else (a manifest) projectFileForManifest.
    static QString storeAddressFor(const QString& opened);

    /// Opens (or creates from the project's manifest) the project file, or opens the project on
    /// a server (never created here), reads the decisions in effect and rebuilds the undo stack
    /// from it. Returns an error message, empty on success. `opened`, when it holds a store, is
    /// that project on a server connected and read on a worker (team_project_open.h): it is
    /// taken as it is, with no statement on this thread.
    QString open(std::shared_ptr<const LoadedProject> project, const QString& projectFile, OpenedTeamStore opened = {});
    void close();
    bool isOpen() const { return store_ != nullptr; }
    QString projectFile() const { return projectFile_; }
    project::ProjectStore* store() const { return store_.get(); }
    const LoadedProject* project() const { return project_.get(); }
    /// The same, shared (what a worker keeps alive while it reads the project).
    std::shared_ptr<const LoadedProject> sharedProject() const { return project_; }
    QUndoStack* undoStack() const { return undoStack_; }

    /// The name recorded with each decision made here (the user's login name to begin with; on a
    /// server, the server login).
    QString curator() const { return curator_; }
    void setCurator(const QString& name) { curator_ = name; }
    /// The server login this window works as; empty for a project file.
    QString login() const { return login_; }
    /// Whether the project is on a server.
    bool onServer() const;

    /// While `reason` is not empty, every decision, undo and redo is refused at once with it
    /// (errorOccurred), nothing queued: a lost connection. readOnlyChanged follows a change.
    void setReadOnly(const QString& reason);
    bool isReadOnly() const { return !readOnlyReason_.isEmpty(); }
    QString readOnlyReason() const { return readOnlyReason_; }

    /// Undo and redo of the window's Edit menu: the store first, the undo stack moved only when
    /// the store did it. False, with errorOccurred, when it was refused; the stack is then as
    /// it was.
    bool undo();
    bool redo();

    /// How many writes this log has sent to its store (each record, undo and redo, refused or
    /// not): a reader on another connection compares it to know whether what it read may
    /// predate one of them.
    std::uint64_t writesSent() const { return writesSent_; }
    /// True while undo() / redo() put the stack back after a refusal: the commands then leave
    /// the store alone.
    bool restoringStack() const { return restoringStack_; }

    /// Decisions another connection wrote (another curator, through team_live_updates.h): for
    /// each mention, the decision now in effect on it (nullopt: none). Every one that differs
    /// from the log's is announced as a local change is (decisionChanged, then
    /// decisionInEffectReplaced); the undo stack is left alone.
    void applyRemote(const std::map<project::MentionKey, std::optional<project::Decision>>& inEffect);

    /// The link the ranker proposes for a mention without a decision; `ranked`, when given, is
    /// the ranker's list of this mention already at hand. Set by the ranker's owner; until then a
    /// mention without a decision has no link.
    using ProposedLink = std::function<std::string(const project::MentionKey& key, const Mention& mention,
                                                   const std::vector<curation::CandidateRow>* ranked)>;
    void setProposedLink(ProposedLink proposedLink) { proposedLink_ = std::move(proposedLink); }

    /// Every mention's latest decision in effect.
    const std::map<project::MentionKey, project::Decision>& decisionsInEffect() const { return inEffect_; }
    std::optional<project::Decision> currentDecision(const project::MentionKey& key) const;
    bool hasDecision(const project::MentionKey& key) const { return inEffect_.count(key) > 0; }
    /// Mentions of a split with a decision in effect.
    int reviewedIn(const std::string& split) const;
    /// The link in effect: the current decision's, else the proposed one ("" when none);
    /// `ranked` as for ProposedLink.
    std::string linkInEffect(const project::MentionKey& key, const Mention& mention,
                             const std::vector<curation::CandidateRow>* ranked = nullptr) const;

    /// The other mentions of the project that read like `mention` (same text, ignoring case and
    /// spacing), have no decision yet, and whose link in effect is not `link`: what "apply to
    /// all identical mentions" would change. Project order (split, document, offset).
    std::vector<MentionRef> sameSurface(const project::MentionKey& key, const Mention& mention,
                                        const std::string& link) const;

    /// Records a decision through the undo stack (stored before this returns). newLink: the
    /// chosen ids for accept / correct (joined by '|'), ignored otherwise. Returns false, with
    /// errorOccurred emitted, when the store refused it.
    bool decide(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                const std::string& newLink = {});
    /// Records the same decision on every mention listed, as one undo step (a macro; reopened
    /// projects undo them one by one). Returns how many were stored.
    int decideAll(const std::vector<MentionRef>& mentions, project::DecisionKind kind, const std::string& newLink);
    /// Several curators (core/curation/adjudication.h): records a decision as decide() does,
    /// under this log's curator name marked as an adjudicator's.
    bool adjudicate(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                    const std::string& newLink = {});

    /// Called by the undo commands (decision_command.h): the store's side of record / undo /
    /// redo. Each emits decisionChanged and decisionInEffectReplaced for the mention on success,
    /// and errorOccurred otherwise.
    std::optional<project::Decision> storeRecord(const project::Decision& decision);
    bool storeUndo(std::int64_t expectedId);
    bool storeRedo(std::int64_t expectedId);

    /// While a merge writes into the project file through its own connection, undo and redo are
    /// refused (the store's latest decision may be an imported one).
    void setMergeUnderWay(bool underWay) { mergeUnderWay_ = underWay; }
    bool mergeUnderWay() const { return mergeUnderWay_; }
    /// Reads the decisions again after another connection wrote into the project file (a merge):
    /// decisionInEffectReplaced for every mention whose decision in effect changed, the undo
    /// stack rebuilt, then decisionsReloaded. Nothing when no project is open.
    void readBackStore();
    /// The same with the history read elsewhere: every decision this login may read, in id
    /// order, as ProjectStore::decisions() gives it (a worker's read on its own connection, so
    /// that the GUI thread waits for no server). Nothing when no project is open.
    void readBackFrom(const std::vector<project::Decision>& history);
    /// Rebuilds the undo stack from a history read elsewhere (every decision, in id order; a
    /// worker's catch-up after a write left in doubt); the decisions in effect are not touched.
    void restoreUndoStack(const std::vector<project::Decision>& history) { rebuildUndoStackFrom(history); }

Q_SIGNALS:
    void decisionChanged(const linkscope::project::MentionKey& key);
    /// The decision in effect on one mention changed from `before` to `after` (either unset when
    /// the mention had, or has, none): a decision made, undone, redone, or read back from the
    /// store. After decisionChanged when one decision changed.
    void decisionInEffectReplaced(const std::optional<linkscope::project::Decision>& before,
                                  const std::optional<linkscope::project::Decision>& after);
    /// Many decisions changed at once (readBackStore, readBackFrom): every view reads them again.
    void decisionsReloaded();
    void errorOccurred(const QString& message);
    /// The store said that the connection to the server is lost (a write failed for it).
    void connectionLost(const QString& message);
    /// The connection was lost while `decision` was being recorded, its COMMIT perhaps sent:
    /// the server may or may not have stored it. The view is left as it was; catching up
    /// (team_live_updates.h) shows which. Before connectionLost.
    void recordOutcomeUnknown(const linkscope::project::Decision& decision);
    /// The same for the undo (`undo` true) or the redo of the decision `id`: the server may or
    /// may not have changed its state. The undo stack is left as it was.
    void stateChangeOutcomeUnknown(std::int64_t id, bool undo);
    void readOnlyChanged(bool readOnly);

private:
    void readDecisionsInEffect();
    void rebuildUndoStack();
    void rebuildUndoStackFrom(const std::vector<project::Decision>& history);
    void announce(const std::optional<project::Decision>& before, const std::optional<project::Decision>& after);
    /// The message of a store's refusal, in plain words; connectionLost when it was that.
    QString refusal(const std::exception& error);
    bool refusedAsReadOnly(const QString& what);

    std::shared_ptr<const LoadedProject> project_;
    std::unique_ptr<project::ProjectStore> store_;
    QString projectFile_;
    QUndoStack* undoStack_ = nullptr;
    QString curator_;
    QString login_;
    QString readOnlyReason_;
    ProposedLink proposedLink_;
    bool lastRecordStored_ = false;   ///< set by storeRecord, read by decide
    bool lastChangeRefused_ = false;  ///< set by storeUndo / storeRedo, read by undo / redo
    bool restoringStack_ = false;
    bool mergeUnderWay_ = false;
    std::uint64_t writesSent_ = 0;
    std::map<project::MentionKey, project::Decision> inEffect_;
};

}  // namespace linkscope::ui
