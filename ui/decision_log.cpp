#include "decision_log.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUndoStack>

#include <algorithm>
#include <filesystem>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "curation/adjudication.h"
#include "decision_command.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "project/team_work.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

QString userName() {
    const QString name = qEnvironmentVariable("USER", qEnvironmentVariable("USERNAME"));
    return name.isEmpty() ? QStringLiteral("curator") : name;
}

QString surfaceKey(const std::string& text) { return QString::fromStdString(text).simplified().toCaseFolded(); }

}  // namespace

DecisionLog::DecisionLog(QObject* parent) : QObject(parent), undoStack_(new QUndoStack(this)), curator_(userName()) {}

DecisionLog::~DecisionLog() = default;

QString DecisionLog::projectFileForManifest(const QString& manifestPath) {
    const QFileInfo manifest(manifestPath);
    const QByteArray hash =
        QCryptographicHash::hash(manifest.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(10);
    const QString folder =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/projects");
    QDir().mkpath(folder);
    return QStringLiteral("%1/%2-%3.linkscope").arg(folder, manifest.completeBaseName(), QString::fromLatin1(hash));
}

QString DecisionLog::storeAddressFor(const QString& opened) {
    if (opened.endsWith(QLatin1String(".linkscope")) || project::ProjectStore::isServerAddress(opened.toStdString()))
        return opened;
    return projectFileForManifest(opened);
}

QString DecisionLog::open(std::shared_ptr<const LoadedProject> project, const QString& projectFile,
                          OpenedTeamStore opened) {
    close();
    if (opened.store) {
        store_ = std::move(opened.store);
        login_ = QString::fromStdString(store_->login());
        if (!login_.isEmpty()) curator_ = login_;
        project_ = std::move(project);
        projectFile_ = projectFile;
        for (const project::Decision& decision : opened.history)
            if (decision.state == project::DecisionState::Done) inEffect_[decision.mention] = decision;  // latest wins
        rebuildUndoStackFrom(opened.history);
        return {};
    }
    try {
        const std::filesystem::path file = projectFile.toStdString();
        // A server's project is made by `linkscope-cli project create`, never by opening it.
        auto store = project::ProjectStore::isServerAddress(projectFile.toStdString()) || std::filesystem::exists(file)
                         ? project::ProjectStore::open(file)
                         : project::ProjectStore::create(file, project->manifest);
        store_ = std::make_unique<project::ProjectStore>(std::move(store));
    } catch (const std::exception& error) {
        return QString::fromUtf8(error.what());
    }
    login_ = QString::fromStdString(store_->login());
    if (!login_.isEmpty()) curator_ = login_;  // the server names who decided: the login
    project_ = std::move(project);
    projectFile_ = projectFile;
    readDecisionsInEffect();
    rebuildUndoStack();
    return {};
}

void DecisionLog::close() {
    mergeUnderWay_ = false;
    undoStack_->clear();
    inEffect_.clear();
    store_.reset();
    project_.reset();
    projectFile_.clear();
    login_.clear();
    setReadOnly({});
}

bool DecisionLog::onServer() const { return store_ && store_->onServer(); }

void DecisionLog::setReadOnly(const QString& reason) {
    const bool was = isReadOnly();
    readOnlyReason_ = reason;
    if (was != isReadOnly()) Q_EMIT readOnlyChanged(isReadOnly());
}

bool DecisionLog::refusedAsReadOnly(const QString& what) {
    if (!isReadOnly()) return false;
    Q_EMIT errorOccurred(tr("%1: %2").arg(what, readOnlyReason_));
    return true;
}

QString DecisionLog::refusal(const std::exception& error) {
    if (dynamic_cast<const project::StoreDisconnected*>(&error)) Q_EMIT connectionLost(QString::fromUtf8(error.what()));
    return QString::fromUtf8(error.what());
}

bool DecisionLog::undo() {
    if (!store_ || !undoStack_->canUndo() || refusedAsReadOnly(tr("Undo refused"))) return false;
    lastChangeRefused_ = false;
    undoStack_->undo();
    if (!lastChangeRefused_) return true;
    // The store did not move: the stack goes back to where it was, the store left alone.
    restoringStack_ = true;
    undoStack_->redo();
    restoringStack_ = false;
    return false;
}

bool DecisionLog::redo() {
    if (!store_ || !undoStack_->canRedo() || refusedAsReadOnly(tr("Redo refused"))) return false;
    lastChangeRefused_ = false;
    undoStack_->redo();
    if (!lastChangeRefused_) return true;
    restoringStack_ = true;
    undoStack_->undo();
    restoringStack_ = false;
    return false;
}

void DecisionLog::announce(const std::optional<project::Decision>& before,
                           const std::optional<project::Decision>& after) {
    const project::MentionKey key = after ? after->mention : before->mention;
    if (after)
        inEffect_[key] = *after;
    else
        inEffect_.erase(key);
    Q_EMIT decisionChanged(key);
    Q_EMIT decisionInEffectReplaced(before, after);
}

void DecisionLog::applyRemote(const std::map<project::MentionKey, std::optional<project::Decision>>& inEffect) {
    if (!store_) return;
    for (const auto& [key, now] : inEffect) {
        const auto before = currentDecision(key);
        if (!before && !now) continue;
        if (before && now && before->id == now->id && before->state == now->state) continue;
        announce(before, now);
    }
}

void DecisionLog::readDecisionsInEffect() {
    inEffect_.clear();
    for (project::Decision& decision : store_->doneDecisions()) {
        const project::MentionKey key = decision.mention;
        inEffect_[key] = std::move(decision);  // id order: the latest wins
    }
}

void DecisionLog::rebuildUndoStack() { rebuildUndoStackFrom(store_->decisions()); }

void DecisionLog::rebuildUndoStackFrom(const std::vector<project::Decision>& history) {
    undoStack_->clear();
    int undone = 0;
    std::vector<DecisionCommand*> commands;
    for (const project::Decision& decision : history) {
        if (decision.state == project::DecisionState::Discarded) continue;
        // On a server each login undoes its own decisions: the others' are not on this stack.
        if (!login_.isEmpty() && QString::fromStdString(decision.login) != login_) continue;
        if (decision.state == project::DecisionState::Undone) ++undone;
        auto* command = DecisionCommand::restored(*this, decision);
        undoStack_->push(command);
        commands.push_back(command);
    }
    // Undone decisions are the newest (a new decision discards them), so they are the top of
    // the stack: undo them there without touching the store.
    for (int i = 0; i < undone; ++i) undoStack_->undo();
    for (DecisionCommand* command : commands) command->setReplaying(false);
    undoStack_->setClean();
}

void DecisionLog::readBackStore() {
    if (store_) readBackFrom(store_->decisions());
}

void DecisionLog::readBackFrom(const std::vector<project::Decision>& history) {
    if (!store_) return;
    const std::map<project::MentionKey, project::Decision> before = inEffect_;
    inEffect_.clear();
    for (const project::Decision& decision : history)
        if (decision.state == project::DecisionState::Done) inEffect_[decision.mention] = decision;  // latest wins
    rebuildUndoStackFrom(history);
    // The same announcement as a decision made here: the replaced one out, the new one in.
    for (const auto& [key, decision] : inEffect_) {
        const auto old = before.find(key);
        if (old != before.end() && old->second.id == decision.id) continue;
        if (old != before.end())
            Q_EMIT decisionInEffectReplaced(old->second, decision);
        else
            Q_EMIT decisionInEffectReplaced(std::nullopt, decision);
    }
    for (const auto& [key, decision] : before)
        if (inEffect_.count(key) == 0) Q_EMIT decisionInEffectReplaced(decision, std::nullopt);
    Q_EMIT decisionsReloaded();
}

std::optional<project::Decision> DecisionLog::currentDecision(const project::MentionKey& key) const {
    const auto found = inEffect_.find(key);
    if (found == inEffect_.end()) return std::nullopt;
    return found->second;
}

int DecisionLog::reviewedIn(const std::string& split) const {
    return static_cast<int>(std::count_if(inEffect_.begin(), inEffect_.end(),
                                          [&split](const auto& entry) { return entry.first.split == split; }));
}

std::string DecisionLog::linkInEffect(const project::MentionKey& key, const Mention& mention,
                                      const std::vector<curation::CandidateRow>* ranked) const {
    if (const auto decision = currentDecision(key))
        if (const auto link = project::decidedLink(*decision)) return *link;
    return proposedLink_ ? proposedLink_(key, mention, ranked) : std::string();
}

std::vector<MentionRef> DecisionLog::sameSurface(const project::MentionKey& key, const Mention& mention,
                                                 const std::string& link) const {
    std::vector<MentionRef> found;
    if (!project_) return found;
    const QString surface = surfaceKey(mention.text);
    for (const SplitCorpus& split : project_->splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& other : document.mentions) {
                if (surfaceKey(other.text) != surface) continue;
                project::MentionKey otherKey{split.split, document.pmid(), other.start, other.end};
                if (otherKey == key || hasDecision(otherKey)) continue;
                if (linkInEffect(otherKey, other) == link) continue;
                found.push_back({std::move(otherKey), &other});
            }
    return found;
}

bool DecisionLog::decide(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                         const std::string& newLink) {
    if (!store_ || refusedAsReadOnly(tr("The decision was not saved"))) return false;
    project::Decision decision;
    decision.mention = key;
    decision.mentionText = mention.text;
    decision.kind = kind;
    decision.previousLink = linkInEffect(key, mention);
    if (kind == project::DecisionKind::Accept || kind == project::DecisionKind::Correct)
        decision.newLink = newLink.empty() ? decision.previousLink : newLink;
    else if (kind == project::DecisionKind::Nil)
        decision.newLink = "-1";
    decision.curator = curator_.toStdString();
    lastRecordStored_ = false;
    undoStack_->push(new DecisionCommand(*this, std::move(decision)));  // redo() stores it, or marks it obsolete
    return lastRecordStored_;
}

int DecisionLog::decideAll(const std::vector<MentionRef>& mentions, project::DecisionKind kind,
                           const std::string& newLink) {
    if (mentions.empty() || refusedAsReadOnly(tr("The decisions were not saved"))) return 0;
    int stored = 0;
    undoStack_->beginMacro(tr("Apply to %n identical mention(s)", nullptr, static_cast<int>(mentions.size())));
    for (const MentionRef& ref : mentions)
        if (decide(ref.key, *ref.mention, kind, newLink)) ++stored;
    undoStack_->endMacro();
    return stored;
}

bool DecisionLog::adjudicate(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                             const std::string& newLink) {
    // The mark is the curator name (adjudication.h); the log's own name is kept for decide().
    const QString curator = curator_;
    curator_ = QString::fromStdString(curation::adjudicatorName(curator_.toStdString()));
    const bool stored = decide(key, mention, kind, newLink);
    curator_ = curator;
    return stored;
}

std::optional<project::Decision> DecisionLog::storeRecord(const project::Decision& decision) {
    ++writesSent_;
    try {
        project::Decision stored = store_->record(decision);
        const auto replaced = currentDecision(stored.mention);
        inEffect_[stored.mention] = stored;
        lastRecordStored_ = true;
        Q_EMIT decisionChanged(stored.mention);
        Q_EMIT decisionInEffectReplaced(replaced, stored);
        return stored;
    } catch (const project::DecisionConflict& conflict) {
        // Another curator decided this mention in between: the window shows their decision.
        Q_EMIT errorOccurred(tr("The decision was not saved: %1").arg(refusal(conflict)));
        const auto shown = currentDecision(decision.mention);
        const auto& theirs = conflict.theirs();
        if (theirs && (!shown || shown->id != theirs->id)) announce(shown, theirs);
        return std::nullopt;
    } catch (const project::StoreDisconnected& lost) {
        // The COMMIT may have reached the server before the connection went: nobody can say
        // whether it was stored until the catch-up after reconnecting reads the server again.
        Q_EMIT errorOccurred(tr("The connection to the server was lost while “%1” was being saved: the server may "
                                "or may not have stored it. The view shows it as not saved until Linkscope has "
                                "reconnected; catching up will show whether it was stored.")
                                 .arg(describeDecision(decision)));
        Q_EMIT recordOutcomeUnknown(decision);
        refusal(lost);
        return std::nullopt;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("The decision was not saved: %1").arg(refusal(error)));
        return std::nullopt;
    }
}

bool DecisionLog::storeUndo(std::int64_t expectedId) {
    lastChangeRefused_ = true;  // until the store has done it
    if (mergeUnderWay_) {
        // The store's latest decision may be an imported one; the stack is rebuilt at the end.
        Q_EMIT errorOccurred(tr("Undo waits for the merge under way to finish"));
        return false;
    }
    ++writesSent_;
    try {
        const auto undone = store_->undo();
        if (!undone || undone->id != expectedId)
            throw Error("the project file's undo history differs from the window's (was it changed elsewhere?)");
        readDecisionsInEffect();
        Q_EMIT decisionChanged(undone->mention);
        Q_EMIT decisionInEffectReplaced(*undone, currentDecision(undone->mention));  // the one before, if any
        lastChangeRefused_ = false;
        return true;
    } catch (const project::StoreDisconnected& lost) {
        const auto found = std::find_if(inEffect_.begin(), inEffect_.end(),
                                        [expectedId](const auto& entry) { return entry.second.id == expectedId; });
        const QString what = found == inEffect_.end() ? tr("the last decision") : describeDecision(found->second);
        Q_EMIT errorOccurred(tr("The connection to the server was lost while undoing “%1”: the server may or may not "
                                "have undone it. The view shows it as not undone until Linkscope has reconnected; "
                                "catching up will show which.")
                                 .arg(what));
        Q_EMIT stateChangeOutcomeUnknown(expectedId, true);
        refusal(lost);
        return false;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("Undo refused: %1").arg(refusal(error)));
        return false;
    }
}

bool DecisionLog::storeRedo(std::int64_t expectedId) {
    lastChangeRefused_ = true;
    if (mergeUnderWay_) {
        Q_EMIT errorOccurred(tr("Redo waits for the merge under way to finish"));
        return false;
    }
    ++writesSent_;
    try {
        const auto redone = store_->redo();
        if (!redone || redone->id != expectedId)
            throw Error("the project file's redo history differs from the window's (was it changed elsewhere?)");
        const auto replaced = currentDecision(redone->mention);
        inEffect_[redone->mention] = *redone;
        Q_EMIT decisionChanged(redone->mention);
        Q_EMIT decisionInEffectReplaced(replaced, *redone);
        lastChangeRefused_ = false;
        return true;
    } catch (const project::StoreDisconnected& lost) {
        Q_EMIT errorOccurred(
            tr("The connection to the server was lost while redoing the last undone decision: the "
               "server may or may not have redone it. The view shows it as undone until Linkscope "
               "has reconnected; catching up will show which."));
        Q_EMIT stateChangeOutcomeUnknown(expectedId, false);
        refusal(lost);
        return false;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("Redo refused: %1").arg(refusal(error)));
        return false;
    }
}

}  // namespace linkscope::ui
