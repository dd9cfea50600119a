#pragma once
// Long work off the GUI thread: every worker of the GUI (loading, indexing, ranking, training,
// evaluating, exporting) is a BackgroundJob. One job runs one piece of work at a time on a thread
// of its own pool; its outcome comes back on the thread the job lives in (the GUI thread).
//
// Why each job has a pool of its own: on Qt's global pool a long job holds the threads that Qt's
// raster engine borrows for large fills, and painting then waits for the job
// (benchmarks/ui_stall); and a job that runs for hours (a training) would hold a thread that
// short jobs wait for. One thread: a run started while a cancelled one is still ending waits for
// it, so two runs of one job never work side by side (they may share an encoder).
//
// The work lowers its thread's priority first (worker_priority.h), so that the GUI thread gets a
// core when it needs one while every core is busy.
//
// Outcomes, each on the job's thread: the work's result goes to the callback given to start();
// an exception becomes failed(message); Cancelled (util/progress.h), or a cancel() before the
// outcome was handed over, becomes cancelled(). A run replaced by a later start() reports
// nothing. Exactly one outcome per run that is not replaced.
//
// Lifetime: the destructor cancels and waits for the work. The work runs while its owner is being
// destroyed, until the job is: declare the job after the members its work reads, or cancel and
// wait in the owner's destructor.
#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "util/progress.h"

namespace linkscope::ui {

class BackgroundJob;

/// What a job's work is handed, on the job's thread of work.
class JobContext {
public:
    /// True once the job was cancelled (or replaced by a later start()).
    bool isCancelled() const;
    /// Throws Cancelled when isCancelled().
    void checkCancelled() const;
    /// Progress: value in 0..BackgroundJob::progressMaximum(). Qt thins it (a few updates a second,
    /// rising values only) before progressChanged() reaches the job's thread.
    void reportProgress(int value, const QString& text) const;
    /// A sink for core's work: its stage and fraction of the whole become the text and value of
    /// reportProgress; it stops the work when the job is cancelled. It refers to this context:
    /// use it only while the work runs.
    ProgressSink progressSink() const;
    /// Runs `call` on the job's thread later, unless the run has been cancelled or replaced by
    /// then: how work hands over something before its end (a first result, a batch, progress
    /// of its own kind).
    void post(std::function<void()> call) const;

private:
    friend class BackgroundJob;
    struct Run;
    JobContext(BackgroundJob* job, std::shared_ptr<Run> run, QPromise<void>& promise, int progressMaximum)
        : job_(job), run_(std::move(run)), promise_(promise), progressMaximum_(progressMaximum) {}

    BackgroundJob* job_;
    std::shared_ptr<Run> run_;
    QPromise<void>& promise_;
    int progressMaximum_;
};

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    explicit BackgroundJob(QObject* parent = nullptr);
    /// Cancels the work and waits for it.
    ~BackgroundJob() override;

    /// Starts `work(const JobContext&)` on the job's thread; a run under way is cancelled and
    /// replaced (its outcome is dropped). Its result R goes to `deliver(R)` on the job's thread
    /// (`deliver()` when the work returns nothing), unless the run failed, was cancelled or was
    /// replaced. `work` and `deliver` must be copyable.
    template <typename Work, typename Deliver>
    void start(Work work, Deliver deliver);

    /// True while the work runs (its outcome may still be on its way to the job's thread).
    bool isRunning() const { return watcher_.isRunning(); }
    /// Asks the work to stop; it polls JobContext::isCancelled(). Whatever it returns then is
    /// dropped: cancelled() follows.
    void cancel();
    /// Waits for the work of the current run to end (its outcome arrives through the event loop).
    void waitForFinished();

    /// The range of progress values (0..maximum); 100 unless set before start().
    void setProgressMaximum(int maximum) { progressMaximum_ = maximum; }
    int progressMaximum() const { return progressMaximum_; }
    /// The job's own pool (never the global one).
    const QThreadPool& pool() const { return pool_; }

Q_SIGNALS:
    void progressChanged(int value, const QString& text);
    /// The work threw; `message` is the exception's what().
    void failed(const QString& message);
    void cancelled();

private:
    friend class JobContext;
    using Delivery = std::function<void()>;
    /// Runs on the job's thread of work; returns what delivers its result on the job's thread.
    using ErasedWork = std::function<Delivery(const JobContext&)>;
    void launch(ErasedWork work);
    void onFinished();

    /// Declared before the watcher, whose future runs on it.
    QThreadPool pool_;
    QFutureWatcher<void> watcher_;
    std::shared_ptr<JobContext::Run> current_;
    int progressMaximum_ = 100;
};

template <typename Work, typename Deliver>
void BackgroundJob::start(Work work, Deliver deliver) {
    using Result = std::invoke_result_t<Work&, const JobContext&>;
    launch([work = std::move(work), deliver = std::move(deliver)](const JobContext& context) mutable -> Delivery {
        if constexpr (std::is_void_v<Result>) {
            work(context);
            return [deliver]() mutable { deliver(); };
        } else {
            auto result = std::make_shared<Result>(work(context));
            return [deliver, result]() mutable { deliver(std::move(*result)); };
        }
    });
}

}  // namespace linkscope::ui
