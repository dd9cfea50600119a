// Huge pages for malloc's blocks (util/huge_pages.h): the plan from the kernel's THP setting and
// the environment; hugePagesRequested() reading GLIBC_TUNABLES as glibc does (the last setting
// wins); and the restart itself in a child process (huge_pages_child): the same process (pid)
// comes back with the tunable set, and a 64 MiB block from malloc is then held in huge pages.
#include <QProcess>
#include <QProcessEnvironment>
#include <QtTest>

#include <map>
#include <string>

#include "util/huge_pages.h"

using linkscope::util::planHugePages;

namespace {

// Runs the child with the given environment changes ("" removes a variable); its report as a map.
std::map<std::string, std::string> runChild(const std::map<QString, QString>& changes, qint64* pid) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("GLIBC_TUNABLES"));
    environment.remove(QStringLiteral("LINKSCOPE_HUGE_PAGES"));
    environment.remove(QStringLiteral("LINKSCOPE_HUGE_PAGES_RESTARTED"));
    for (const auto& [name, value] : changes) environment.insert(name, value);
    QProcess child;
    child.setProcessEnvironment(environment);
    child.start(QStringLiteral(LINKSCOPE_HUGE_PAGES_CHILD), {});
    if (!child.waitForStarted(10000)) return {};
    *pid = child.processId();
    if (!child.waitForFinished(30000) || child.exitCode() != 0) return {};
    std::map<std::string, std::string> report;
    for (const QByteArray& line : child.readAllStandardOutput().split('\n')) {
        const auto equals = line.indexOf('=');
        if (equals > 0) report[line.left(equals).toStdString()] = line.mid(equals + 1).toStdString();
    }
    return report;
}

}  // namespace

class TestHugePages : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void planFromTheKernelAndTheEnvironment() {
        // Debian's default: THP only where asked; nothing set yet: restart with the tunable.
        auto plan = planHugePages("always [madvise] never", nullptr, nullptr);
        QVERIFY(plan.restart);
        QCOMPARE(plan.tunables, std::string("glibc.malloc.hugetlb=1"));
        // Other tunables the user set are kept, ours appended.
        plan = planHugePages("always [madvise] never", "glibc.malloc.arena_max=2", nullptr);
        QVERIFY(plan.restart);
        QCOMPARE(plan.tunables, std::string("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
        // The user's own setting of it, even 0, wins: no restart (and no loop after ours).
        QVERIFY(!planHugePages("always [madvise] never", "glibc.malloc.hugetlb=0", nullptr).restart);
        QVERIFY(!planHugePages("always [madvise] never", "glibc.malloc.hugetlb=1", nullptr).restart);
        // THP for every block already, or for none: nothing to ask for.
        plan = planHugePages("[always] madvise never", nullptr, nullptr);
        QVERIFY(!plan.restart);
        QVERIFY(plan.reason.find("always") != std::string::npos);
        QVERIFY(!planHugePages("always madvise [never]", nullptr, nullptr).restart);
        QVERIFY(!planHugePages("", nullptr, nullptr).restart);
        QVERIFY(!planHugePages("garbage without brackets", nullptr, nullptr).restart);
        // The opt-out.
        plan = planHugePages("always [madvise] never", nullptr, "0");
        QVERIFY(!plan.restart);
        QCOMPARE(plan.reason, std::string("LINKSCOPE_HUGE_PAGES=0"));
        QVERIFY(planHugePages("always [madvise] never", nullptr, "1").restart);
    }

    void requestedAsGlibcReadsTheTunables() {
#if !defined(__GLIBC__)
        QSKIP("not glibc: the tunable does not exist, hugePagesRequested() is always false");
#else
        const QByteArray saved = qgetenv("GLIBC_TUNABLES");
        const bool had = qEnvironmentVariableIsSet("GLIBC_TUNABLES");
        const auto requestedWith = [](const char* value) {
            if (value)
                qputenv("GLIBC_TUNABLES", value);
            else
                qunsetenv("GLIBC_TUNABLES");
            return linkscope::util::hugePagesRequested();
        };
        QVERIFY(!requestedWith(nullptr));
        QVERIFY(!requestedWith("glibc.malloc.arena_max=2"));
        QVERIFY(!requestedWith("glibc.malloc.hugetlb=0"));
        QVERIFY(requestedWith("glibc.malloc.hugetlb=1"));
        QVERIFY(requestedWith("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
        QVERIFY(requestedWith("glibc.malloc.hugetlb=1:glibc.malloc.arena_max=2"));
        QVERIFY(!requestedWith("glibc.malloc.hugetlb=1:glibc.malloc.hugetlb=0"));
        QVERIFY(!requestedWith("glibc.malloc.hugetlb="));
        if (had)
            qputenv("GLIBC_TUNABLES", saved);
        else
            qunsetenv("GLIBC_TUNABLES");
#endif
    }

    void theProgramRestartsItselfWithHugePages() {
        const std::string mode = linkscope::util::transparentHugePagesMode();
        qint64 pid = 0;
        const auto report = runChild({}, &pid);
        QVERIFY2(!report.empty(), "huge_pages_child did not run to its end");
        // The same process: execv keeps the pid, so nothing is left behind or doubled.
        QCOMPARE(report.at("pid"), std::to_string(pid));
        if (mode != "madvise") {
            QCOMPARE(report.at("requested"), std::string("0"));
            QSKIP(qPrintable(QStringLiteral("transparent huge pages are \"%1\" here: no restart to test")
                                 .arg(QString::fromStdString(mode))));
        }
#if !defined(__GLIBC__)
        QSKIP("not glibc: no tunable to restart with");
#endif
        QCOMPARE(report.at("tunables"), std::string("glibc.malloc.hugetlb=1"));
        QCOMPARE(report.at("requested"), std::string("1"));
        // What it is for: malloc's 64 MiB block came in 2 MiB pages (the kernel may fall back to
        // small pages when no huge page is free, so at least one of its 32, not all).
        QVERIFY2(std::stol(report.at("anon_huge_kb")) >= 2048,
                 ("no huge page held after the restart: AnonHugePages " + report.at("anon_huge_kb") + " kB").c_str());

        // The user's tunables kept; the opt-out honoured.
        const auto withOthers =
            runChild({{QStringLiteral("GLIBC_TUNABLES"), QStringLiteral("glibc.malloc.arena_max=2")}}, &pid);
        QCOMPARE(withOthers.at("tunables"), std::string("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
        const auto optedOut = runChild({{QStringLiteral("LINKSCOPE_HUGE_PAGES"), QStringLiteral("0")}}, &pid);
        QCOMPARE(optedOut.at("tunables"), std::string());
        QCOMPARE(optedOut.at("requested"), std::string("0"));
    }
};

QTEST_GUILESS_MAIN(TestHugePages)
#include "test_huge_pages.moc"
