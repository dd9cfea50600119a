#pragma once
// The Linking menu: which ranker proposes the links of the open project. Sparse TF-IDF from the
// start; a trained run (the project's registered runs, or any run folder) with the kNN-BioEL
// interpolation, Xu & Bethard's sieve or the model alone, built on a worker with progress and
// cancel (RankerHost::linkWithRun).
#include <QMenu>

namespace linkscope::ui {

class CurationSession;
class DecisionLog;
class RankerHost;

class LinkingMenu : public QMenu {
    Q_OBJECT
public:
    /// Links through the session's ranker host; the session must outlive the menu.
    LinkingMenu(CurationSession* session, QWidget* parent);

    /// Asks for a run and a linking, then starts it (the dialog's parent is the menu's parent).
    void chooseRun();

private:
    void updateActions();

    const DecisionLog* decisions_;  ///< the project file, for its runs
    RankerHost* rankers_;
    QAction* linkRun_;
    QAction* linkSparse_;
    QAction* cancel_;
};

}  // namespace linkscope::ui
