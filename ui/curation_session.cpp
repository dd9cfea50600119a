#include "curation_session.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUndoStack>
#include <QtConcurrent>

#include <atomic>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "curation/sparse_candidates.h"
#include "decision_command.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

QString userName() {
    const QString name = qEnvironmentVariable("USER", qEnvironmentVariable("USERNAME"));
    return name.isEmpty() ? QStringLiteral("curator") : name;
}

}  // namespace

CurationSession::CurationSession(QObject* parent)
    : QObject(parent), undoStack_(new QUndoStack(this)), curator_(userName()) {
    connect(&candidateWatcher_, &QFutureWatcherBase::finished, this, [this] {
        if (candidateWatcher_.isCanceled()) return;
        try {
            candidates_ = candidateWatcher_.result();
        } catch (const std::exception& error) {
            Q_EMIT errorOccurred(tr("Could not index the knowledge base: %1").arg(QString::fromUtf8(error.what())));
            return;
        }
        if (candidates_) Q_EMIT candidatesReady();
    });
}

CurationSession::~CurationSession() { close(); }

QString CurationSession::projectFileForManifest(const QString& manifestPath) {
    const QFileInfo manifest(manifestPath);
    const QByteArray hash = QCryptographicHash::hash(manifest.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(10);
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/projects");
    QDir().mkpath(folder);
    return QStringLiteral("%1/%2-%3.linkscope").arg(folder, manifest.completeBaseName(), QString::fromLatin1(hash));
}

QString CurationSession::open(std::shared_ptr<const LoadedProject> project, const QString& projectFile) {
    close();
    try {
        const std::filesystem::path file = projectFile.toStdString();
        auto store = std::filesystem::exists(file) ? project::ProjectStore::open(file)
                                                   : project::ProjectStore::create(file, project->manifest);
        store_ = std::make_unique<project::ProjectStore>(std::move(store));
    } catch (const std::exception& error) {
        return QString::fromUtf8(error.what());
    }
    project_ = std::move(project);
    projectFile_ = projectFile;
    reloadDecisions();
    rebuildUndoStack();
    startCandidates();
    return {};
}

void CurationSession::close() {
    if (cancelCandidates_) cancelCandidates_->store(true);
    if (candidateWatcher_.isRunning()) {
        candidateWatcher_.cancel();  // the watcher then reports no result
        candidateWatcher_.waitForFinished();
    }
    undoStack_->clear();
    current_.clear();
    candidates_.reset();
    store_.reset();
    project_.reset();
    projectFile_.clear();
}

void CurationSession::startCandidates() {
    auto project = project_;
    // The worker keeps the project alive; cancellation is polled between the build's stages.
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    cancelCandidates_ = cancelled;
    candidateWatcher_.setFuture(QtConcurrent::run([this, project, cancelled]() -> std::shared_ptr<const curation::SparseCandidates> {
        ProgressSink progress;
        progress.report = [this](std::string_view stage, double fraction) {
            const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
            QMetaObject::invokeMethod(this, [this, text, fraction] {
                Q_EMIT candidatesProgress(text, static_cast<int>(fraction * 100));
            }, Qt::QueuedConnection);
        };
        progress.cancelled = [cancelled] { return cancelled->load(); };
        try {
            return std::make_shared<const curation::SparseCandidates>(*project->kb, /*homonymExpansion=*/true, progress);
        } catch (const Cancelled&) {
            return nullptr;
        }
    }));
}

void CurationSession::reloadDecisions() {
    current_.clear();
    for (project::Decision& decision : store_->doneDecisions()) {
        const project::MentionKey key = decision.mention;
        current_[key] = std::move(decision);  // id order: the latest wins
    }
}

void CurationSession::rebuildUndoStack() {
    undoStack_->clear();
    const std::vector<project::Decision> history = store_->decisions();
    int undone = 0;
    std::vector<DecisionCommand*> commands;
    for (const project::Decision& decision : history) {
        if (decision.state == project::DecisionState::Discarded) continue;
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

std::vector<curation::CandidateRow> CurationSession::candidates(const Mention& mention, std::size_t k) const {
    if (!candidates_) return {};
    return candidates_->rank(mention.text, k);
}

std::string CurationSession::proposedLink(const Mention& mention) const {
    const auto rows = candidates(mention, 1);
    return rows.empty() ? std::string() : rows.front().entity;
}

std::optional<project::Decision> CurationSession::currentDecision(const project::MentionKey& key) const {
    const auto found = current_.find(key);
    if (found == current_.end()) return std::nullopt;
    return found->second;
}

std::string CurationSession::linkInEffect(const project::MentionKey& key, const Mention& mention) const {
    if (const auto decision = currentDecision(key))
        if (const auto link = project::decidedLink(*decision)) return *link;
    return proposedLink(mention);
}

bool CurationSession::decide(const project::MentionKey& key, const Mention& mention, project::DecisionKind kind,
                             const std::string& newLink) {
    if (!store_) return false;
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

namespace {
QString surfaceKey(const std::string& text) { return QString::fromStdString(text).simplified().toCaseFolded(); }
}  // namespace

std::vector<CurationSession::MentionRef> CurationSession::sameSurface(const project::MentionKey& key, const Mention& mention,
                                                                      const std::string& link) const {
    std::vector<MentionRef> found;
    if (!project_) return found;
    const QString surface = surfaceKey(mention.text);
    for (const SplitCorpus& split : project_->splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& other : document.mentions) {
                if (surfaceKey(other.text) != surface) continue;
                project::MentionKey otherKey{split.split, document.pmid(), other.start, other.end};
                if (otherKey == key || current_.count(otherKey) > 0) continue;
                if (proposedLink(other) == link) continue;
                found.push_back({std::move(otherKey), &other});
            }
    return found;
}

int CurationSession::decideAll(const std::vector<MentionRef>& mentions, project::DecisionKind kind, const std::string& newLink) {
    if (mentions.empty()) return 0;
    int stored = 0;
    undoStack_->beginMacro(tr("Apply to %n identical mention(s)", nullptr, static_cast<int>(mentions.size())));
    for (const MentionRef& ref : mentions)
        if (decide(ref.key, *ref.mention, kind, newLink)) ++stored;
    undoStack_->endMacro();
    return stored;
}

std::optional<project::Decision> CurationSession::storeRecord(const project::Decision& decision) {
    try {
        project::Decision stored = store_->record(decision);
        current_[stored.mention] = stored;
        lastRecordStored_ = true;
        Q_EMIT decisionChanged(stored.mention);
        return stored;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("The decision was not saved: %1").arg(QString::fromUtf8(error.what())));
        return std::nullopt;
    }
}

bool CurationSession::storeUndo(std::int64_t expectedId) {
    try {
        const auto undone = store_->undo();
        if (!undone || undone->id != expectedId)
            throw Error("the project file's undo history differs from the window's (was it changed elsewhere?)");
        reloadDecisions();
        Q_EMIT decisionChanged(undone->mention);
        return true;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("Undo failed: %1").arg(QString::fromUtf8(error.what())));
        return false;
    }
}

bool CurationSession::storeRedo(std::int64_t expectedId) {
    try {
        const auto redone = store_->redo();
        if (!redone || redone->id != expectedId)
            throw Error("the project file's redo history differs from the window's (was it changed elsewhere?)");
        current_[redone->mention] = *redone;
        Q_EMIT decisionChanged(redone->mention);
        return true;
    } catch (const std::exception& error) {
        Q_EMIT errorOccurred(tr("Redo failed: %1").arg(QString::fromUtf8(error.what())));
        return false;
    }
}

}  // namespace linkscope::ui
