#include "project_context.h"

#include <algorithm>
#include <utility>

namespace linkscope::ui {

ProjectContext::ProjectContext(QObject* parent) : QObject(parent) {}

void ProjectContext::follow(QObject* receiver, Step step) {
    followers_.push_back({receiver, std::move(step)});
    connect(receiver, &QObject::destroyed, this, [this](QObject* gone) {
        std::erase_if(followers_, [gone](const Follower& follower) { return follower.receiver == gone; });
    });
}

void ProjectContext::setProject(Project project) {
    project_ = std::move(project);
    Q_EMIT projectChanged(project_);
    // One follower a turn; the first turn is queued behind the events already waiting. A
    // follower that goes away before its turn is skipped (destroyed removed it).
    turns_.start(
        [this, next = std::size_t{0}]() mutable {
            if (next < followers_.size()) {
                followers_[next++].step(project_);
                return true;
            }
            Q_EMIT projectShown();  // a turn of its own too
            return false;
        },
        TurnScheduler::FirstTurn::Queued);
}

}  // namespace linkscope::ui
