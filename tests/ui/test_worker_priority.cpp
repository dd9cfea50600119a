// A worker lowers its own priority and only its own (ui/worker_priority.h): the thread that calls
// lowerWorkerPriority() runs at nice 10 or more, threads it starts afterwards inherit that, and
// the thread that started it (the GUI thread) keeps its priority.
#include <QTest>

#include <thread>

#include "worker_priority.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {
int ownNice() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))); }
}  // namespace
#endif

class TestWorkerPriority : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void onlyTheWorkerAndItsHelpersAreLowered() {
#ifndef __linux__
        QSKIP("per-thread nice is Linux's");
#else
        const int before = ownNice();
        int worker = -100, helper = -100;
        std::thread([&] {
            linkscope::ui::lowerWorkerPriority();
            worker = ownNice();
            std::thread([&] { helper = ownNice(); }).join();
        }).join();
        QVERIFY2(worker >= 10, qPrintable(QStringLiteral("worker nice %1").arg(worker)));
        QCOMPARE(helper, worker);
        QCOMPARE(ownNice(), before);
#endif
    }
};

QTEST_GUILESS_MAIN(TestWorkerPriority)
#include "test_worker_priority.moc"
