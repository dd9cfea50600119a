#include "decision_command.h"

#include <QCoreApplication>

#include "decision_log.h"

namespace linkscope::ui {

QString describeDecision(const project::Decision& decision) {
    const QString text = QString::fromStdString(decision.mentionText);
    const QString link = QString::fromStdString(decision.newLink);
    switch (decision.kind) {
        case project::DecisionKind::Accept:
            return QCoreApplication::translate("DecisionCommand", "Accept %1 for “%2”").arg(link, text);
        case project::DecisionKind::Correct:
            return QCoreApplication::translate("DecisionCommand", "Correct “%2” to %1").arg(link, text);
        case project::DecisionKind::Reject:
            return QCoreApplication::translate("DecisionCommand", "Reject the link of “%1”").arg(text);
        case project::DecisionKind::Nil:
            return QCoreApplication::translate("DecisionCommand", "Mark “%1” as NIL").arg(text);
        case project::DecisionKind::Skip:
            return QCoreApplication::translate("DecisionCommand", "Skip “%1”").arg(text);
    }
    return {};
}

QString decidedBy(const project::Decision& decision) {
    const QString curator = QString::fromStdString(decision.curator);
    const QString login = QString::fromStdString(decision.login);
    if (login.isEmpty() || login == curator) return login.isEmpty() ? curator : login;
    return QStringLiteral("%1 (%2)").arg(login, curator);
}

DecisionCommand::DecisionCommand(DecisionLog& decisions, project::Decision decision)
    : decisions_(&decisions), decision_(std::move(decision)) {
    setText(describeDecision(decision_));
}

DecisionCommand* DecisionCommand::restored(DecisionLog& decisions, project::Decision decision) {
    auto* command = new DecisionCommand(decisions, std::move(decision));
    command->firstRedo_ = false;
    command->replaying_ = true;
    return command;
}

void DecisionCommand::redo() {
    if (replaying_ || decisions_->restoringStack()) return;
    if (firstRedo_) {
        firstRedo_ = false;
        if (const auto stored = decisions_->storeRecord(decision_)) {
            decision_ = *stored;
        } else {
            setObsolete(true);  // refused: QUndoStack drops the command
        }
        return;
    }
    if (stored()) decisions_->storeRedo(decision_.id);
}

void DecisionCommand::undo() {
    if (replaying_ || decisions_->restoringStack() || !stored()) return;
    decisions_->storeUndo(decision_.id);
}

}  // namespace linkscope::ui
