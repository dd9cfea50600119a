#include "turn_scheduler.h"

#include <QTimer>

#include <utility>

namespace linkscope::ui {

void TurnScheduler::start(std::function<bool()> step, FirstTurn first) {
    const std::uint64_t generation = ++generation_;
    running_ = true;
    auto shared = std::make_shared<std::function<bool()>>(std::move(step));
    if (first == FirstTurn::Now)
        runTurn(generation, shared);
    else
        queueTurn(generation, std::move(shared));
}

void TurnScheduler::runTurn(std::uint64_t generation, const Step& step) {
    if (generation != generation_) return;  // started again or cancelled since it was queued
    const bool more = (*step)();
    if (generation != generation_) return;  // the step itself started or cancelled this scheduler
    if (more)
        queueTurn(generation, step);
    else
        running_ = false;
}

void TurnScheduler::queueTurn(std::uint64_t generation, Step step) {
    // A zero timer runs after the events already queued, so input and paints come between turns.
    // With context_ as the receiver, a turn still queued when it is destroyed is not delivered.
    QTimer::singleShot(0, context_, [this, generation, step = std::move(step)] { runTurn(generation, step); });
}

}  // namespace linkscope::ui
