#include "background_job.h"

#include <QMetaObject>
#include <QThread>
#include <QtConcurrent/QtConcurrent>

#include <exception>

#include "worker_priority.h"

namespace linkscope::ui {

// One start(): its cancel flag and, once the work ended, its outcome. The outcome is written on
// the thread of work before the future finishes and read on the job's thread after.
struct JobContext::Run {
    enum class Outcome { Delivered, Failed, Cancelled };
    std::atomic<bool> cancelled{false};
    Outcome outcome = Outcome::Cancelled;
    BackgroundJob::Delivery delivery;
    QString error;
};

bool JobContext::isCancelled() const { return run_->cancelled.load(); }

void JobContext::checkCancelled() const {
    if (isCancelled()) throw Cancelled();
}

void JobContext::reportProgress(int value, const QString& text) const { promise_.setProgressValueAndText(value, text); }

ProgressSink JobContext::progressSink() const {
    ProgressSink sink;
    sink.report = [this](std::string_view stage, double fraction) {
        reportProgress(static_cast<int>(fraction * progressMaximum_),
                       QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())));
    };
    sink.cancelled = [this] { return isCancelled(); };
    return sink;
}

void JobContext::post(std::function<void()> call) const {
    QMetaObject::invokeMethod(
        job_,
        [job = job_, run = run_, call = std::move(call)] {
            if (run == job->current_ && !run->cancelled.load()) call();
        },
        Qt::QueuedConnection);
}

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1);
    connect(&watcher_, &QFutureWatcherBase::finished, this, &BackgroundJob::onFinished);
    connect(&watcher_, &QFutureWatcherBase::progressValueChanged, this,
            [this](int value) { Q_EMIT progressChanged(value, watcher_.progressText()); });
}

BackgroundJob::~BackgroundJob() {
    cancel();
    // The current run and any replaced run still ending: all of them ran on pool_.
    pool_.waitForDone();
}

void BackgroundJob::cancel() {
    if (!current_) return;
    current_->cancelled.store(true);
    watcher_.cancel();  // Qt then drops the run's progress, and skips the work if it has not begun
}

void BackgroundJob::waitForFinished() { watcher_.waitForFinished(); }

void BackgroundJob::launch(ErasedWork work) {
    cancel();  // a run under way stops; the watcher forgets it below
    auto run = std::make_shared<JobContext::Run>();
    current_ = run;
    QThread* const owner = thread();
    const int maximum = progressMaximum_;
    watcher_.setFuture(
        QtConcurrent::run(&pool_, [this, run, owner, maximum, work = std::move(work)](QPromise<void>& promise) {
            if (run->cancelled.load()) return;  // cancelled before it began: nothing to do
            // A run that waitForFinished() takes over runs on the owner's thread: that one keeps its
            // priority.
            if (QThread::currentThread() != owner) lowerWorkerPriority();
            promise.setProgressRange(0, maximum);
            const JobContext context(this, run, promise, maximum);
            try {
                run->delivery = work(context);
                run->outcome = JobContext::Run::Outcome::Delivered;
            } catch (const Cancelled&) {
                run->outcome = JobContext::Run::Outcome::Cancelled;
            } catch (const std::exception& error) {
                run->outcome = JobContext::Run::Outcome::Failed;
                run->error = QString::fromUtf8(error.what());
            } catch (...) {
                run->outcome = JobContext::Run::Outcome::Failed;
                run->error = tr("an unknown error");
            }
        }));
}

void BackgroundJob::onFinished() {
    // A replaced run's finish can still be on its way when the next one started: only a current
    // run whose work has ended is handed over, and only once.
    if (!current_ || !watcher_.future().isFinished()) return;
    const std::shared_ptr<JobContext::Run> run = std::exchange(current_, nullptr);
    if (run->cancelled.load()) {
        Q_EMIT cancelled();
        return;
    }
    switch (run->outcome) {
        case JobContext::Run::Outcome::Delivered:
            run->delivery();
            break;
        case JobContext::Run::Outcome::Failed:
            Q_EMIT failed(run->error);
            break;
        case JobContext::Run::Outcome::Cancelled:
            Q_EMIT cancelled();
            break;
    }
}

}  // namespace linkscope::ui
