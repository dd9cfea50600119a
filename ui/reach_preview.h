#pragma once
// The Candidates dock's preview of a decision's reach, shown when a candidate row is
// selected and before anything is stored: how many other mentions would change their link if
// this candidate were chosen, and which (click one to go to it). With the sparse ranker a
// decision changes no other proposal; what reaches further is "Apply to all", offered after it
// for the undecided mentions with the same text linked otherwise (DecisionLog::sameSurface),
// so that is the list. With a linked run the decision's kNN key also changes the proposal of
// other undecided mentions (RankerHost::datastoreMoves: exact, the key added for a moment),
// which follow the same-text ones in the list.
#include <QFrame>
#include <QString>

#include <vector>

#include "project/curation_decision.h"

class QLabel;
class QListWidget;

namespace linkscope::ui {

class ReachPreview : public QFrame {
    Q_OBJECT
public:
    struct Entry {
        project::MentionKey key;
        QString text;  ///< one line: the mention, where it is, its link now
    };
    explicit ReachPreview(QWidget* parent = nullptr);
    /// Shows the list for candidate `entity` (hidden when `entity` is empty): `sameText`, what
    /// "Apply to all" would change, then `datastore`, the other mentions whose proposal the run's
    /// datastore key would change (empty with the sparse ranker; none of them also in `sameText`).
    void showReach(const QString& entity, const std::vector<Entry>& sameText, const std::vector<Entry>& datastore = {});
    /// Shows the mentions a decision already stored moved to another proposal (the datastore's
    /// reach, after the fact), under `title`.
    void showChanged(const QString& title, const std::vector<Entry>& entries);
    void clear();
    int count() const { return static_cast<int>(keys_.size()); }
    const std::vector<project::MentionKey>& keys() const { return keys_; }
    QString summary() const;

Q_SIGNALS:
    void mentionActivated(const QString& split, const QString& pmid, int start, int end);

private:
    QLabel* summary_;
    QListWidget* list_;
    std::vector<project::MentionKey> keys_;
};

}  // namespace linkscope::ui
