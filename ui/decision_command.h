#pragma once
// One curation decision on the undo stack. The first redo() records the decision in the project
// file; later undo() / redo() move it between done and undone there. A command rebuilt from a
// reopened project starts as already applied (and, for an undone decision, is undone on the
// stack without touching the store), so the stack and the file always agree.
#include <QUndoCommand>

#include "project/curation_decision.h"

namespace linkscope::ui {

class DecisionLog;

class DecisionCommand : public QUndoCommand {
public:
    /// A new decision, stored by the first redo().
    DecisionCommand(DecisionLog& decisions, project::Decision decision);
    /// A decision read back from the project file: nothing is stored by the first redo().
    static DecisionCommand* restored(DecisionLog& decisions, project::Decision decision);

    void undo() override;
    void redo() override;

    const project::Decision& decision() const { return decision_; }
    /// False when the store refused the decision (the command then does nothing).
    bool stored() const { return decision_.id != 0; }
    /// While true, undo() and redo() leave the store alone (rebuilding the stack on reopen).
    void setReplaying(bool replaying) { replaying_ = replaying; }

private:
    DecisionLog* decisions_;
    project::Decision decision_;
    bool firstRedo_ = true;
    bool replaying_ = false;
};

/// "Accept MESH:D003920 for “diabetes”", as the Edit menu shows it.
QString describeDecision(const project::Decision& decision);
/// Who made a decision: the server login that recorded it (on a server; followed by the curator
/// name the client gave where that differs, e.g. an adjudicator's mark), else the curator name.
QString decidedBy(const project::Decision& decision);

}  // namespace linkscope::ui
