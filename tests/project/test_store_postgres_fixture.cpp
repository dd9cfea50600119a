// The PostgreSQL server fixture (tests/common/postgres_server.h) leaks no descriptor of the test
// into what it starts: a pipe the test holds open without close-on-exec reaches its end as soon
// as the test closes its write end, though the server and the watchdog still run (before, both
// held a copy and a reader waited until they ended). The watchdog runs in the background, in a
// session of its own, with standard input, output and error only. Skipped, saying why, where
// initdb is not installed.
#include <QtTest/QtTest>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "postgres_server.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

std::string fileText(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The processes whose command line holds every fragment.
std::vector<pid_t> processesWith(const std::vector<std::string>& fragments) {
    std::vector<pid_t> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string command = fileText(entry.path() / "cmdline");
        bool all = !command.empty();
        for (const std::string& fragment : fragments) all = all && command.find(fragment) != std::string::npos;
        if (all) found.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return found;
}

}  // namespace

class TestStorePostgresFixture : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void serverAndWatchdogInheritNoDescriptor() {
        int ends[2];
        QVERIFY(::pipe(ends) == 0);  // inheritable, as a test's pipes often are
        test::PostgresServer server;
        if (!server.start()) {
            ::close(ends[0]);
            ::close(ends[1]);
            if (!server.skipReason().isEmpty()) QSKIP(qPrintable(server.skipReason()));
            QFAIL(qPrintable(server.why()));
        }
        QVERIFY2(!server.newDatabase().empty(), qPrintable(server.why()));
        QVERIFY2(server.killAndRestart(), qPrintable(server.why()));  // a server started again

        ::close(ends[1]);
        pollfd reader{ends[0], POLLIN, 0};
        const int ready = ::poll(&reader, 1, 5000);
        char byte = 0;
        const bool atEnd = ready == 1 && ::read(ends[0], &byte, 1) == 0;
        ::close(ends[0]);
        QVERIFY2(atEnd, "a program the fixture started holds the test's pipe open");

        const std::vector<pid_t> watchdogs =
            processesWith({"kill -0 " + std::to_string(::getpid()) + " ", server.socketFolder().toStdString()});
        QVERIFY2(!watchdogs.empty(), "no watchdog runs");
        for (const pid_t watchdog : watchdogs) {
            QVERIFY(::getsid(watchdog) != ::getsid(0));
            std::vector<std::string> descriptors;
            for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(watchdog) + "/fd"))
                descriptors.push_back(entry.path().filename().string());
            std::sort(descriptors.begin(), descriptors.end());
            QCOMPARE(descriptors, (std::vector<std::string>{"0", "1", "2"}));
        }
    }
};

QTEST_GUILESS_MAIN(TestStorePostgresFixture)
#include "test_store_postgres_fixture.moc"
