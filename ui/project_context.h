#pragma once
// The open project, which docks follow: each dock registers once (follow) and is handed every
// project opened from then on, instead of the window handing each dock the project in turn.
//
// Taking a project costs each view work on the GUI thread, and all views together would hold it
// longer than the UI may stall (benchmarks/ui_stall). So setProject() runs the followers one per
// turn of the event loop (TurnScheduler), in the order they registered, and says so with
// projectShown() after the last; projectChanged() is emitted at once, for what must not point
// into the previous project a turn longer. A later setProject() drops the turns left of an
// earlier one.
#include <QObject>

#include <functional>
#include <memory>
#include <vector>

#include "turn_scheduler.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class ProjectContext : public QObject {
    Q_OBJECT
public:
    using Project = std::shared_ptr<const LoadedProject>;
    using Step = std::function<void(const Project&)>;

    explicit ProjectContext(QObject* parent = nullptr);

    const Project& project() const { return project_; }
    /// Makes `project` the open one: projectChanged now, then each follower's step in a turn of
    /// its own, then projectShown.
    void setProject(Project project);
    /// Registers `step` for every later project, run in a turn of its own after those registered
    /// before it. It is dropped with `receiver`.
    void follow(QObject* receiver, Step step);
    /// follow() with the receiver's own setProject(project).
    template <class Dock>
    void follow(Dock* dock) {
        follow(dock, [dock](const Project& project) { dock->setProject(project); });
    }

Q_SIGNALS:
    void projectChanged(const linkscope::ui::ProjectContext::Project& project);
    /// Every follower has taken the project (a turn after the last one).
    void projectShown();

private:
    struct Follower {
        QObject* receiver;
        Step step;
    };
    Project project_;
    std::vector<Follower> followers_;
    TurnScheduler turns_{this};
};

}  // namespace linkscope::ui
