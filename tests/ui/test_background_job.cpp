// The one worker type of the GUI (ui/background_job.h): results, failures and cancellation come
// back on the job's thread, a replaced run reports nothing, the work runs at lowered priority on
// the job's own pool, and progress and posted calls reach the job's thread.
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

#include "background_job.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {
int ownNice() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))); }
}  // namespace
#endif

using linkscope::ui::BackgroundJob;
using linkscope::ui::JobContext;

namespace {

// Waits on the thread of work until `flag` is set or the run is cancelled.
void waitFor(const std::atomic<bool>& flag, const JobContext& context) {
    while (!flag.load() && !context.isCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

class TestBackgroundJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void resultArrivesOnTheJobsThread() {
        BackgroundJob job;
        QSignalSpy failed(&job, &BackgroundJob::failed);
        QThread* worker = nullptr;
        std::optional<int> result;
        QThread* deliveredOn = nullptr;
        job.start(
            [&worker](const JobContext&) {
                worker = QThread::currentThread();
                return 42;
            },
            [&](int value) {
                result = value;
                deliveredOn = QThread::currentThread();
            });
        QTRY_VERIFY(result.has_value());
        QCOMPARE(*result, 42);
        QCOMPARE(deliveredOn, QThread::currentThread());
        QVERIFY(worker != nullptr && worker != QThread::currentThread());
        QVERIFY(!job.isRunning());
        QCOMPARE(failed.count(), 0);
    }

    void anExceptionBecomesFailedWithItsMessage() {
        BackgroundJob job;
        QSignalSpy failed(&job, &BackgroundJob::failed);
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        bool delivered = false;
        job.start([](const JobContext&) -> int { throw std::runtime_error("the KB file is truncated"); },
                  [&delivered](int) { delivered = true; });
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("the KB file is truncated"));
        QVERIFY(!delivered);
        QCOMPARE(cancelled.count(), 0);
    }

    void cancelStopsTheWorkAndDropsItsResult() {
        BackgroundJob job;
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        QSignalSpy failed(&job, &BackgroundJob::failed);
        std::atomic<bool> started{false};
        bool delivered = false;
        job.start(
            [&started](const JobContext& context) {
                started = true;
                for (;;) {  // runs until told to stop
                    context.checkCancelled();
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
            },
            [&delivered] { delivered = true; });
        QTRY_VERIFY(started.load());
        QVERIFY(job.isRunning());
        job.cancel();
        QTRY_COMPARE(cancelled.count(), 1);
        QVERIFY(!delivered);
        QCOMPARE(failed.count(), 0);

        // Cancelled after the work returned, before its result was handed over: dropped too.
        job.start([](const JobContext&) { return 1; }, [&delivered](int) { delivered = true; });
        job.waitForFinished();
        job.cancel();
        QTRY_COMPARE(cancelled.count(), 2);
        QTest::qWait(20);
        QVERIFY(!delivered);
    }

    void aReplacedRunReportsNothing() {
        BackgroundJob job;
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        std::atomic<bool> release{false};
        QStringList delivered;
        job.start(
            [&release](const JobContext& context) {
                waitFor(release, context);
                return QStringLiteral("first");
            },
            [&delivered](const QString& value) { delivered << value; });
        job.start([](const JobContext&) { return QStringLiteral("second"); },
                  [&delivered](const QString& value) { delivered << value; });
        QTRY_COMPARE(delivered, QStringList{QStringLiteral("second")});
        QTest::qWait(20);
        QCOMPARE(delivered, QStringList{QStringLiteral("second")});
        QCOMPARE(cancelled.count(), 0);
    }

    void theWorkRunsAtLowerPriority() {
#ifndef __linux__
        QSKIP("per-thread nice is Linux's");
#else
        const int before = ownNice();
        std::optional<int> workerNice;
        BackgroundJob job;
        job.start([](const JobContext&) { return ownNice(); }, [&workerNice](int nice) { workerNice = nice; });
        QTRY_VERIFY(workerNice.has_value());
        QVERIFY2(*workerNice >= 10, qPrintable(QStringLiteral("worker nice %1").arg(*workerNice)));
        QCOMPARE(ownNice(), before);
#endif
    }

    void theJobsPoolIsNotTheGlobalOne() {
        BackgroundJob job;
        QVERIFY(&job.pool() != QThreadPool::globalInstance());
        // Every thread of the global pool busy: the job still runs.
        QThreadPool* global = QThreadPool::globalInstance();
        std::atomic<bool> release{false};
        std::atomic<int> busy{0};
        const int threads = global->maxThreadCount();
        for (int i = 0; i < threads; ++i)
            global->start([&] {
                ++busy;
                while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        QTRY_COMPARE(busy.load(), threads);
        bool delivered = false;
        job.start([](const JobContext&) { return true; }, [&delivered](bool) { delivered = true; });
        QTRY_VERIFY(delivered);
        release = true;
        global->waitForDone();
    }

    void progressAndPostedCallsReachTheJobsThread() {
        BackgroundJob job;
        job.setProgressMaximum(1000);
        QSignalSpy progress(&job, &BackgroundJob::progressChanged);
        QList<QThread*> postedOn;
        bool delivered = false;
        job.start(
            [&postedOn](const JobContext& context) {
                context.post([&postedOn] { postedOn << QThread::currentThread(); });
                context.progressSink()("Reading", 1.0);
            },
            [&] {
                QCOMPARE(postedOn.size(), 1);  // posted before the end: handed over first
                delivered = true;
            });
        QTRY_VERIFY(delivered);
        QCOMPARE(postedOn, QList<QThread*>{QThread::currentThread()});
        QTRY_VERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toInt(), 1000);
        QCOMPARE(progress.last().at(1).toString(), QStringLiteral("Reading"));
    }

    void aCancelledRunsPostsAreDropped() {
        BackgroundJob job;
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        std::atomic<bool> posted{false};
        int stale = 0, fresh = 0;
        job.start(
            [&](const JobContext& context) {
                context.post([&stale] { ++stale; });
                posted = true;
                while (!context.isCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            },
            [] {});
        // Posted but not handed over yet (no event processed since): the cancel drops it.
        while (!posted.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        job.cancel();
        bool delivered = false;
        job.start([&fresh](const JobContext& context) { context.post([&fresh] { ++fresh; }); },
                  [&delivered] { delivered = true; });
        QTRY_VERIFY(delivered);
        QCOMPARE(fresh, 1);
        QCOMPARE(stale, 0);
        QCOMPARE(cancelled.count(), 0);  // the first run was replaced: it reports nothing
    }
};

QTEST_GUILESS_MAIN(TestBackgroundJob)
#include "test_background_job.moc"
