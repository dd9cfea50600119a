#include "curation_controller.h"

#include <QAction>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QMenu>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QWidget>

#include <algorithm>
#include <set>

#include "candidate_model.h"
#include "candidates_panel.h"
#include "corpus/corpus.h"
#include "curation_session.h"
#include "decision_command.h"
#include "document_view.h"
#include "documents_dock.h"
#include "entity_search_box.h"
#include "message_log.h"
#include "project/loaded_project.h"
#include "reach_preview.h"
#include "review_claims.h"
#include "review_queue_order.h"

namespace linkscope::ui {

CurationController::CurationController(CurationSession* session, DocumentsDock* documents, DocumentView* view,
                                       CandidatesPanel* candidates, EntitySearchBox* correctionSearch, MessageLog* log,
                                       QObject* parent)
    : QObject(parent),
      session_(session),
      decisions_(session->decisions()),
      rankers_(session->rankers()),
      documents_(documents),
      view_(view),
      candidates_(candidates),
      log_(log) {
    connect(view_, &DocumentView::currentMentionChanged, this, [this] {
        if (!placingClaim_) session_->claims()->moveTo(currentMentionKey());  // a team's claim is released
        showCandidates();
    });
    connect(candidates_, &CandidatesPanel::acceptRequested, this,
            [this] { decideCurrent(project::DecisionKind::Accept); });
    connect(candidates_, &CandidatesPanel::correctRequested, this,
            [this](const QString& id) { decideCurrent(project::DecisionKind::Correct, id); });
    connect(candidates_, &CandidatesPanel::rejectRequested, this,
            [this] { decideCurrent(project::DecisionKind::Reject); });
    connect(candidates_, &CandidatesPanel::nilRequested, this, [this] { decideCurrent(project::DecisionKind::Nil); });
    connect(candidates_, &CandidatesPanel::skipRequested, this, [this] { decideCurrent(project::DecisionKind::Skip); });
    connect(candidates_, &CandidatesPanel::applyToAllRequested, this, &CurationController::applyOffer);
    connect(correctionSearch, &EntitySearchBox::entityChosen, this, [this](const QString& id) {
        const Mention* mention = currentMention();
        const auto key = currentMentionKey();
        if (!mention || !key) return;
        const bool same = decisions_->linkInEffect(*key, *mention) == id.toStdString();
        if (decideCurrent(same ? project::DecisionKind::Accept : project::DecisionKind::Correct, id))
            view_->setFocus();  // back to the document: the next mention is one key away
    });
    connect(
        candidates_->table()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) { previewReach(current.data(CandidateModel::EntityIdRole).toString()); });
    connect(candidates_->reachPreview(), &ReachPreview::mentionActivated, this, &CurationController::showMention);

    // The ranker's progress and outcome in the message log.
    connect(rankers_, &RankerHost::rankerProgress, this, [this](const QString& stage, int percent) {
        log_->progress(tr("Candidates"), tr("%1: %2 %").arg(stage).arg(percent));
    });
    connect(rankers_, &RankerHost::runLinked, this,
            [this] { log_->note(tr("Linking"), tr("Linked with %1").arg(rankers_->rankerDescription())); });
    connect(rankers_, &RankerHost::runLinkingCancelled, this, [this] {
        log_->note(tr("Linking"), tr("Linking with the run stopped; %1 ranks").arg(rankers_->rankerDescription()));
    });
    connect(rankers_, &RankerHost::sparseLinked, this,
            [this] { log_->note(tr("Linking"), tr("Linked with %1").arg(rankers_->rankerDescription())); });
    connect(session_, &CurationSession::errorOccurred, this,
            [this](const QString& message) { log_->error(tr("Linking"), message); });

    connect(rankers_, &RankerHost::rankerReady, this, [this] {
        log_->progress(tr("Candidates"), tr("Candidates ready"));
        showCandidates();  // the selected mention's first
        // The mention colours a turn later: together with the candidates and the repaints they
        // cause, the arrival of the ranker held the GUI thread too long (benchmarks/ui_stall).
        QTimer::singleShot(0, this, [this] { refreshMentionStates(); });
    });
    connect(rankers_, &RankerHost::rankingsChanged, this,
            [this](const std::vector<project::MentionKey>& reranked) { showRankingsChanged(reranked); });
    connect(decisions_, &DecisionLog::decisionChanged, this, [this](const project::MentionKey& key) {
        if (currentDocument_ && key.split == currentSplit_ && key.document == currentDocument_->pmid()) {
            refreshMentionStates();
            showCandidates();
        }
    });
    // Other curators' claims changed: the mentions' tooltips say who holds what.
    connect(session_->claims(), &ReviewClaims::claimsChanged, this, [this] { refreshMentionStates(); });
    // The claim F8 asked for is answered: its mention is shown, or why there is none.
    connect(session_->claims(), &ReviewClaims::nextAnswered, this,
            [this](const std::optional<QueuedMention>& claimed, int queueSize) {
                if (claimed) {
                    showWorthReviewing(*claimed, queueSize);
                    return;
                }
                const QString error = session_->claims()->lastError();
                if (!error.isEmpty())
                    log_->error(source(), error);
                else
                    log_->note(source(), tr("Every mention left in the queue is claimed by another curator"));
            });
    // A lost connection turns curation off until the window is connected again.
    connect(decisions_, &DecisionLog::readOnlyChanged, this, [this] { showCandidates(); });
    // A merge changed many decisions at once.
    connect(decisions_, &DecisionLog::decisionsReloaded, this, [this] {
        if (currentDocument_) {
            refreshMentionStates();
            showCandidates();
        }
    });
}

QString CurationController::source() { return tr("Curation"); }

void CurationController::createActions(QMenu* edit, QWidget* window) {
    // Undo and redo through the log: the stack moves only when the store did (a refusal, or a
    // lost connection, leaves both as they were).
    QAction* undo = new QAction(tr("&Undo"), window);
    connect(undo, &QAction::triggered, decisions_, &DecisionLog::undo);
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = new QAction(tr("&Redo"), window);
    connect(redo, &QAction::triggered, decisions_, &DecisionLog::redo);
    auto followStack = [this, undo, redo] {
        const QUndoStack* stack = decisions_->undoStack();
        const bool writable = !decisions_->isReadOnly();
        undo->setEnabled(writable && stack->canUndo());
        redo->setEnabled(writable && stack->canRedo());
        undo->setText(stack->canUndo() ? tr("&Undo %1").arg(stack->undoText()) : tr("&Undo"));
        redo->setText(stack->canRedo() ? tr("&Redo %1").arg(stack->redoText()) : tr("&Redo"));
    };
    connect(decisions_->undoStack(), &QUndoStack::indexChanged, this, followStack);
    connect(decisions_->undoStack(), &QUndoStack::canUndoChanged, this, followStack);
    connect(decisions_->undoStack(), &QUndoStack::canRedoChanged, this, followStack);
    connect(decisions_, &DecisionLog::readOnlyChanged, this, followStack);
    followStack();
    // The platform's redo keys, plus both common ones (some platform themes know only one).
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    for (const QKeySequence& key : {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
        if (!redoKeys.contains(key)) redoKeys << key;
    redo->setShortcuts(redoKeys);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // Curation keys work wherever the focus is, except in text fields (they take the keys as
    // typing, through ShortcutOverride).
    auto addKey = [this, edit, window](const QString& text, const QList<QKeySequence>& keys, auto slot) {
        QAction* action = edit->addAction(text);
        action->setShortcuts(keys);
        action->setShortcutContext(Qt::WindowShortcut);
        connect(action, &QAction::triggered, this, slot);
        window->addAction(action);
        return action;
    };
    addKey(tr("&Accept link"), {QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)},
           [this] { candidates_->accept(); });
    addKey(tr("&Reject link"), {QKeySequence(Qt::Key_R)}, [this] { decideCurrent(project::DecisionKind::Reject); });
    addKey(tr("Mark as &NIL"), {QKeySequence(Qt::Key_0)}, [this] { decideCurrent(project::DecisionKind::Nil); });
    addKey(tr("&Skip"), {QKeySequence(Qt::Key_S)}, [this] { decideCurrent(project::DecisionKind::Skip); });
    // The review queue (ui/review_queue_order.h): the undecided mention most worth a look.
    addKey(tr("Next Mention &Worth Reviewing"), {QKeySequence(Qt::Key_F8)}, [this] { nextWorthReviewing(); });
    // In a submenu, not hidden: a hidden action's shortcut does not fire.
    QMenu* pick = edit->addMenu(tr("&Pick candidate"));
    for (int rank = 1; rank <= 9; ++rank) {
        QAction* action = addKey(tr("Candidate %1").arg(rank), {QKeySequence(Qt::Key_0 + rank)},
                                 [this, rank] { candidates_->pick(rank); });
        edit->removeAction(action);
        pick->addAction(action);
    }
}

void CurationController::setProject(std::shared_ptr<const LoadedProject> project) {
    project_ = std::move(project);
    currentDocument_ = nullptr;
    currentSplit_.clear();
    view_->clearDocument();
}

void CurationController::clear() {
    candidates_->model()->clear();
    candidates_->clearOffer();
    offer_ = {};
}

void CurationController::showDocument(const Document* document, const std::string& split) {
    currentDocument_ = document && project_ ? document : nullptr;
    currentSplit_ = currentDocument_ ? split : std::string();
    if (!currentDocument_) {
        view_->clearDocument();
        showCandidates();
        return;
    }
    // Its proposals (the mentions' colours, its review figures) before the rest's.
    rankers_->prioritizeDocument(currentSplit_, currentDocument_->pmid());
    view_->showDocument(QString::fromStdString(document->title), QString::fromStdString(document->abstract),
                        mentionSpans(*document, *project_, statusFunction()));
}

bool CurationController::showMention(const QString& split, const QString& pmid, int start, int end) {
    const Document* document = documents_->selectDocument(split.toStdString(), pmid.toStdString());
    if (!document) return false;
    for (std::size_t i = 0; i < document->mentions.size(); ++i)
        if (static_cast<int>(document->mentions[i].start) == start &&
            static_cast<int>(document->mentions[i].end) == end) {
            view_->selectMention(static_cast<int>(i));
            view_->setFocus();
            return true;
        }
    return false;
}

MentionStatusFn CurationController::statusFunction() const {
    if (!decisions_->isOpen() || !currentDocument_) return {};
    return [this](const Mention& mention) {
        MentionStatus status;
        const project::MentionKey key{currentSplit_, currentDocument_->pmid(), mention.start, mention.end};
        const auto decision = decisions_->currentDecision(key);
        if (!decision || decision->kind == project::DecisionKind::Skip) {
            status.state = rankers_->sparseRankerBuilt() ? MentionState::Predicted : MentionState::Unreviewed;
            if (decision) status.note = tr("skipped by %1").arg(decidedBy(*decision).toHtmlEscaped());
            if (const QString claim = session_->claims()->claimNote(key); !claim.isEmpty())
                status.note += (status.note.isEmpty() ? QString() : QStringLiteral("<br>")) + claim;
            return status;
        }
        switch (decision->kind) {
            case project::DecisionKind::Accept:
                status.state = MentionState::Accepted;
                break;
            case project::DecisionKind::Correct:
                status.state = MentionState::Corrected;
                break;
            default:
                status.state = MentionState::Rejected;
                break;
        }
        status.note =
            tr("%1: %2<br>by %3, %4")
                .arg(QString::fromUtf8(project::decisionKindName(decision->kind).data()),
                     QString::fromStdString(decision->newLink.empty() ? std::string("(no link)") : decision->newLink),
                     decidedBy(*decision).toHtmlEscaped(), QString::fromStdString(decision->timestamp));
        return status;
    };
}

void CurationController::refreshMentionStates() {
    if (!currentDocument_ || !project_) return;
    view_->updateSpans(mentionSpans(*currentDocument_, *project_, statusFunction()));
}

const Mention* CurationController::currentMention() const {
    const int index = view_->currentMention();
    if (!currentDocument_ || index < 0 || index >= static_cast<int>(currentDocument_->mentions.size())) return nullptr;
    return &currentDocument_->mentions[static_cast<std::size_t>(index)];
}

std::optional<project::MentionKey> CurationController::currentMentionKey() const {
    const Mention* mention = currentMention();
    if (!mention) return std::nullopt;
    return project::MentionKey{currentSplit_, currentDocument_->pmid(), mention->start, mention->end};
}

void CurationController::showCandidates() {
    const Mention* mention = currentMention();
    const auto key = currentMentionKey();
    if (!mention || !key || !project_) {
        candidates_->model()->clear();
        candidates_->setMentionSummary(tr("No mention selected"));
        candidates_->setActionsEnabled(false);
        return;
    }
    // One ranking of the mention for both the list and, while no proposal is kept, its top.
    std::vector<curation::CandidateRow> rows = rankers_->rankCandidates(*key, *mention);
    const std::string current = decisions_->linkInEffect(*key, *mention, &rows);
    candidates_->reachPreview()->clear();  // a new list: no candidate selected yet
    candidates_->model()->setCandidates(std::move(rows), project_->kb.get(), mention->ids.ids, current);
    QString summary =
        tr("<b>%1</b> <i>%2</i> · gold: %3")
            .arg(QString::fromStdString(mention->text).toHtmlEscaped(),
                 QString::fromStdString(mention->type).toHtmlEscaped(),
                 mention->ids.cuiLess ? tr("none (CUI-less)")
                                      : QString::fromStdString(mention->idColumn).trimmed().toHtmlEscaped());
    if (const auto decision = decisions_->currentDecision(*key))
        summary +=
            tr("<br>%1 → %2 (by %3)")
                .arg(QString::fromUtf8(project::decisionKindName(decision->kind).data()),
                     QString::fromStdString(decision->newLink.empty() ? std::string("no link") : decision->newLink),
                     decidedBy(*decision).toHtmlEscaped());
    if (const int index = view_->currentMention(); index >= 0 && index < view_->spans().size())
        if (const QString expansion = view_->spans().at(index).expansion; !expansion.isEmpty())
            summary += tr("<br>abbreviation, linked as “%1”").arg(expansion.toHtmlEscaped());
    summary += tr("<br><small>Ranked by %1</small>").arg(rankers_->rankerDescription().toHtmlEscaped());
    candidates_->setMentionSummary(summary);
    candidates_->setActionsEnabled(decisions_->isOpen() && !decisions_->isReadOnly());
}

void CurationController::showRankingsChanged(const std::vector<project::MentionKey>& reranked) {
    // A decision fed the datastore: the mentions it reached were ranked again (the Documents
    // dock has taken their review figures already).
    const auto selected = currentMentionKey();
    bool here = false, selectedReranked = false;
    for (const project::MentionKey& key : reranked) {
        here = here || (currentDocument_ && key.split == currentSplit_ && key.document == currentDocument_->pmid());
        selectedReranked = selectedReranked || (selected && key == *selected);
    }
    if (here) refreshMentionStates();
    if (selectedReranked) showCandidates();
    // The running total of the decision's reach; the link lists those mentions
    // (showChangedByLastDecision) while the status line still says it.
    const int moved = static_cast<int>(rankers_->changedByLastDecision().size());
    const QString text = tr("The datastore changed: %n mention(s) ranked again, %1 now proposing another entity",
                            nullptr, static_cast<int>(reranked.size()))
                             .arg(moved);
    log_->add(MessageCategory::Progress, source(), text,
              text.toHtmlEscaped() +
                  (moved > 0 ? QStringLiteral(" (<a href=\"changed\">%1</a>)").arg(tr("list them")) : QString()));
}

bool CurationController::decideCurrent(project::DecisionKind kind, const QString& entityId) {
    const Mention* mention = currentMention();
    const auto key = currentMentionKey();
    if (!mention || !key || !decisions_->isOpen()) return false;
    if ((kind == project::DecisionKind::Accept) && decisions_->linkInEffect(*key, *mention).empty()) {
        log_->note(source(), tr("Nothing to accept yet: pick a candidate or search the knowledge base"));
        return false;
    }
    const bool stored = decisions_->decide(*key, *mention, kind, entityId.toStdString());
    if (stored) {
        log_->progress(source(), tr("Saved: %1").arg(decisions_->undoStack()->undoText()));
        offerSameSurface(*key, *mention, kind);
    }
    return stored;
}

void CurationController::offerSameSurface(const project::MentionKey& key, const Mention& mention,
                                          project::DecisionKind kind) {
    candidates_->clearOffer();
    offer_ = {};
    if (kind != project::DecisionKind::Accept && kind != project::DecisionKind::Correct &&
        kind != project::DecisionKind::Nil)
        return;
    const auto decision = decisions_->currentDecision(key);
    if (!decision) return;
    const auto same = decisions_->sameSurface(key, mention, decision->newLink);
    if (same.empty()) return;
    QStringList lines;
    for (const auto& ref : same) {
        offer_.mentions.emplace_back(ref.key, ref.mention);
        const std::string before = rankers_->proposedLink(ref.key, *ref.mention);
        lines << tr("%1 · PMID %2 · “%3”: %4 → %5")
                     .arg(QString::fromStdString(ref.key.split), QString::fromStdString(ref.key.document),
                          QString::fromStdString(ref.mention->text),
                          before.empty() ? tr("no candidate") : QString::fromStdString(before),
                          QString::fromStdString(decision->newLink));
    }
    offer_.kind = kind;
    offer_.link = decision->newLink;
    candidates_->offerSameSurface(
        tr("%n other unreviewed mention(s) read “%1” and are linked differently. "
           "Apply “%2” to all of them?",
           nullptr, static_cast<int>(same.size()))
            .arg(QString::fromStdString(mention.text).toHtmlEscaped(), QString::fromStdString(decision->newLink)),
        lines);
}

void CurationController::applyOffer() {
    std::vector<MentionRef> refs;
    for (const auto& [key, mention] : offer_.mentions) refs.push_back({key, mention});
    const int stored = decisions_->decideAll(refs, offer_.kind, offer_.link);
    log_->note(source(), tr("Applied to %n mention(s)", nullptr, stored));
    offer_ = {};
}

void CurationController::previewReach(const QString& entity) {
    const Mention* mention = currentMention();
    const auto key = currentMentionKey();
    if (entity.isEmpty() || !mention || !key || !decisions_->isOpen()) {
        candidates_->reachPreview()->clear();
        return;
    }
    // The proposal known for every mention, not a new ranking per listed mention (a frequent
    // text lists many mentions: benchmarks/review_queue).
    const auto before = [&](const MentionRef& ref) {
        const auto proposal = rankers_->proposal(ref.key);
        const std::string link = proposal ? proposal->entity : rankers_->proposedLink(ref.key, *ref.mention);
        return link.empty() ? tr("no candidate") : QString::fromStdString(link);
    };
    const auto where = [](const MentionRef& ref) {
        return tr("%1 · PMID %2 · “%3”")
            .arg(QString::fromStdString(ref.key.split), QString::fromStdString(ref.key.document),
                 QString::fromStdString(ref.mention->text));
    };
    std::vector<ReachPreview::Entry> sameText, datastore;
    std::set<project::MentionKey> listed;
    for (const auto& ref : decisions_->sameSurface(*key, *mention, entity.toStdString())) {
        sameText.push_back({ref.key, tr("%1: %2 → %3").arg(where(ref), before(ref), entity)});
        listed.insert(ref.key);
    }
    for (const auto& move : rankers_->datastoreMoves(*key, entity.toStdString()))
        if (!listed.contains(move.ref.key))
            datastore.push_back(
                {move.ref.key, tr("%1: %2 → %3")
                                   .arg(where(move.ref),
                                        move.before.empty() ? tr("no candidate") : QString::fromStdString(move.before),
                                        move.after.empty() ? tr("no candidate") : QString::fromStdString(move.after))});
    candidates_->reachPreview()->showReach(entity, sameText, datastore);
}

int CurationController::showChangedByLastDecision() {
    if (!project_ || !decisions_->isOpen()) return 0;
    std::vector<ReachPreview::Entry> entries;
    for (const project::MentionKey& key : rankers_->changedByLastDecision()) {
        const Mention* mention = rankers_->mentionOf(key);
        if (!mention) continue;
        const std::string now = rankers_->proposedLink(key, *mention);
        entries.push_back({key, tr("%1 · PMID %2 · “%3”: now %4")
                                    .arg(QString::fromStdString(key.split), QString::fromStdString(key.document),
                                         QString::fromStdString(mention->text),
                                         now.empty() ? tr("no candidate") : QString::fromStdString(now))});
    }
    candidates_->reachPreview()->showChanged(tr("The last decision"), entries);
    return static_cast<int>(entries.size());
}

bool CurationController::nextWorthReviewing() {
    const std::vector<QueuedMention> queue = reviewQueueOf(*session_);
    if (queue.empty()) {
        log_->note(source(), rankers_->proposalsAvailable() ? tr("No mention is left to review")
                                                            : tr("The candidates are still being ranked"));
        return false;
    }
    // A team project: the next mention is the first one this login could claim, which
    // ReviewClaims::nextAnswered brings.
    ReviewClaims* claims = session_->claims();
    if (claims->active()) {
        if (claims->claimNext(queue)) return true;
        log_->error(source(), claims->lastError());
        return false;
    }
    return showWorthReviewing(queue.front(), static_cast<int>(queue.size()));
}

bool CurationController::showWorthReviewing(const QueuedMention& entry, int queueSize) {
    const project::MentionKey& key = entry.key;
    const auto show = [&] {
        return showMention(QString::fromStdString(key.split), QString::fromStdString(key.document),
                           static_cast<int>(key.start), static_cast<int>(key.end));
    };
    // Its document may be hidden by the text or review filter: show every document then.
    placingClaim_ = true;  // on the way to the mention claimed: no release
    bool shown = show();
    if (!shown) {
        documents_->showAllDocuments();
        shown = show();
    }
    placingClaim_ = false;
    if (!shown) return false;
    QString message = tr("Worth reviewing: priority %1, %n undecided mention(s) in the queue", nullptr, queueSize)
                          .arg(entry.priority, 0, 'f', 2);
    ReviewClaims* claims = session_->claims();
    if (claims->active()) message += tr("; claimed for you (%1)").arg(claims->modeText());
    log_->progress(source(), message);
    return true;
}

}  // namespace linkscope::ui
