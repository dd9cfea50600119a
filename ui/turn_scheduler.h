#pragma once
// Work on the GUI thread cut into turns of the event loop, so that no single turn holds the
// thread longer than the 100 ms the UI may stall (at UMLS size the views taking a project, the
// homonym listing and the raw file view's layout each took longer than that when done at once;
// benchmarks/ui_stall finds such stalls). The work is a step that does one turn's share and says
// whether more remains; the scheduler queues the next turn behind the events already waiting
// (input, paints) and drops the rest of the work when it is started again or cancelled (another
// project, another file), so a turn queued for old work does nothing. One scheduler runs one
// piece of work at a time.
#include <QObject>

#include <cstdint>
#include <functional>
#include <memory>

namespace linkscope::ui {

class TurnScheduler {
public:
    /// The turns are queued on `context`'s thread and dropped with it. A queued turn calls the
    /// scheduler, so it must live as long as `context`: make it a member of `context`'s class.
    explicit TurnScheduler(QObject* context) : context_(context) {}
    TurnScheduler(const TurnScheduler&) = delete;
    TurnScheduler& operator=(const TurnScheduler&) = delete;

    /// Whether start() runs the first turn at once or queues it like the others.
    enum class FirstTurn { Now, Queued };
    /// Drops the work under way and runs `step` once a turn until it returns false. A step may
    /// start() or cancel() this scheduler: then its own work ends there.
    void start(std::function<bool()> step, FirstTurn first = FirstTurn::Now);
    /// Drops the work under way.
    void cancel() noexcept {
        ++generation_;
        running_ = false;
    }
    /// Whether work is under way (started, and its step has not yet returned false).
    bool running() const noexcept { return running_; }

private:
    using Step = std::shared_ptr<std::function<bool()>>;
    void runTurn(std::uint64_t generation, const Step& step);
    void queueTurn(std::uint64_t generation, Step step);

    QObject* context_;
    std::uint64_t generation_ = 0;  ///< counts start() and cancel(): a turn of an older count is dropped
    bool running_ = false;
};

}  // namespace linkscope::ui
