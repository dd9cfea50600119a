// Progress of long commands on stderr (app/cli/console_progress.h): the reporter on a fake clock
// and a string stream (a terminal's live line, a log's rate-limited lines), and `eval` run with
// its standard error in a file, as in a CI log. No timing is asserted: the clock is the test's.
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "console_progress.h"

using namespace linkscope;
using cli::ConsoleProgress;
using cli::ConsoleProgressOptions;

namespace {

struct FakeConsole {
    std::ostringstream out;
    double seconds = 0.0;
    ConsoleProgressOptions options(bool terminal, double interval) {
        ConsoleProgressOptions o;
        o.terminal = terminal;
        o.intervalSeconds = interval;
        o.now = [this] { return seconds; };
        return o;
    }
    std::vector<std::string> lines() const {
        std::vector<std::string> result;
        std::istringstream in(out.str());
        for (std::string line; std::getline(in, line);) result.push_back(line);
        return result;
    }
};

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

class TestCliProgress : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString file(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QStringList demoEval() {
        return {"eval",
                "--train",
                test::demoFile("demo-train.txt"),
                "--dev",
                test::demoFile("demo-train.txt"),
                "--test",
                test::demoFile("demo-test.txt"),
                "--kb",
                test::demoFile("demo-kb.txt"),
                "--split",
                "test",
                "--method",
                "sparse"};
    }

    // The CLI with standard error written to `errFile` (not a terminal) and the progress
    // interval set; returns stdout.
    static test::CliResult runWithErrorFile(const QStringList& arguments, const QString& errFile,
                                            const char* interval) {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        if (interval)
            environment.insert("LINKSCOPE_PROGRESS_INTERVAL", QString::fromLatin1(interval));
        else
            environment.remove("LINKSCOPE_PROGRESS_INTERVAL");
        process.setProcessEnvironment(environment);
        process.setStandardErrorFile(errFile);
        process.start(QStringLiteral(LINKSCOPE_CLI_PATH), arguments);
        process.closeWriteChannel();
        test::CliResult result;
        if (!process.waitForFinished(120000)) {
            process.kill();
            return result;
        }
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        result.out = process.readAllStandardOutput();
        QFile err(errFile);
        if (err.open(QIODevice::ReadOnly)) result.err = err.readAll();
        return result;
    }

    static std::vector<std::string> linesOf(const QByteArray& text) {
        std::vector<std::string> lines;
        std::istringstream in(text.toStdString());
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }

    // The report without what depends on the clock.
    static nlohmann::json withoutTimes(nlohmann::json report) {
        for (const char* key : {"seconds", "evaluate_seconds", "index_seconds"}) report.erase(key);
        return report;
    }

private Q_SLOTS:
    void plainModeSaysTheFirstReportAtOnceThenAtMostOncePerInterval() {
        FakeConsole console;
        {
            ConsoleProgress progress(console.out, console.options(false, 30.0));
            progress.report("Ranking queries", 0.0);
            QCOMPARE(console.lines().size(), std::size_t{1});
            console.seconds = 10.0;
            progress.report("Ranking queries", 0.25);
            console.seconds = 20.0;
            progress.report("Ranking queries", 0.5);
            QCOMPARE(console.lines().size(), std::size_t{1});  // held back: within the interval
            console.seconds = 30.0;
            progress.report("Ranking queries", 0.6);
            QCOMPARE(console.lines().size(), std::size_t{2});
            console.seconds = 40.0;
            progress.report("Ranking queries", 1.0);
            QCOMPARE(console.lines().size(), std::size_t{2});
        }  // the end says the last report
        const auto lines = console.lines();
        QCOMPARE(lines.size(), std::size_t{3});
        QCOMPARE(lines[0], std::string("progress: Ranking queries 0 %  elapsed 0 s"));
        QCOMPARE(lines[1], std::string("progress: Ranking queries 60 %  elapsed 30 s  eta 20 s"));
        QCOMPARE(lines[2], std::string("progress: Ranking queries 100 %  elapsed 40 s"));
        QVERIFY(console.out.str().find('\r') == std::string::npos);
    }
    void plainModeSaysANewStageAtOnceAndNothingTwice() {
        FakeConsole console;
        ConsoleProgress progress(console.out, console.options(false, 30.0));
        progress.report("Building sparse index", 0.0);
        console.seconds = 1.0;
        progress.report("Building sparse index", 1.0);
        progress.report("Ranking queries", 0.0);
        console.seconds = 2.0;
        progress.report("Ranking queries", 1.0);
        progress.finish();
        progress.finish();  // nothing left to say
        const auto lines = console.lines();
        QCOMPARE(lines.size(), std::size_t{3});
        QVERIFY(startsWith(lines[0], "progress: Building sparse index 0 %"));
        QVERIFY(startsWith(lines[1], "progress: Ranking queries 0 %"));
        QVERIFY(startsWith(lines[2], "progress: Ranking queries 100 %"));
    }
    void zeroIntervalSaysEveryReport() {
        FakeConsole console;
        ConsoleProgress progress(console.out, console.options(false, 0.0));
        for (int i = 0; i <= 4; ++i) progress.report("Encoding names", i / 4.0);
        progress.finish();
        QCOMPARE(console.lines().size(), std::size_t{5});
        QVERIFY(startsWith(console.lines().back(), "progress: Encoding names 100 %"));
    }
    void callerTextIsRateLimitedToo() {
        // The trainer's line (epoch, step, loss, its own ETA) as ProgressPrinter shows it.
        FakeConsole console;
        ConsoleProgress progress(console.out, console.options(false, 30.0));
        progress.show("epoch 1/2  Training 0 %");
        console.seconds = 5.0;
        progress.show("epoch 1/2  Training 10 %");
        console.seconds = 31.0;
        progress.show("epoch 1/2  Training 70 %");
        console.seconds = 32.0;
        progress.show("epoch 1/2  Training 80 %");
        progress.finish();
        auto lines = console.lines();
        QCOMPARE(lines.size(), std::size_t{3});
        QCOMPARE(lines[0], std::string("progress: epoch 1/2  Training 0 %"));
        QCOMPARE(lines[1], std::string("progress: epoch 1/2  Training 70 %"));
        QCOMPARE(lines[2], std::string("progress: epoch 1/2  Training 80 %"));
        // An epoch's result printed by the caller makes the held-back line stale: clear() drops it.
        console.seconds = 40.0;
        progress.show("epoch 2/2  Validating 0 %");  // the first after finish(): said at once
        console.seconds = 41.0;
        progress.show("epoch 2/2  Validating 50 %");
        progress.clear();
        progress.finish();
        lines = console.lines();
        QCOMPARE(lines.size(), std::size_t{4});
        QCOMPARE(lines[3], std::string("progress: epoch 2/2  Validating 0 %"));
    }
    void anErrorEndsTheLogWithoutAProgressLine() {
        FakeConsole console;
        try {
            ConsoleProgress progress(console.out, console.options(false, 30.0));
            progress.report("Ranking queries", 0.0);
            console.seconds = 1.0;
            progress.report("Ranking queries", 0.5);
            throw std::runtime_error("failed");
        } catch (const std::runtime_error&) {
        }
        QCOMPARE(console.lines().size(), std::size_t{1});
    }
    void terminalModeOverwritesOneLineAndClearsIt() {
        FakeConsole console;
        ConsoleProgress progress(console.out, console.options(true, 30.0));
        progress.report("Encoding dictionary", 0.0);
        QCOMPARE(console.out.str(), std::string("\rEncoding dictionary 0 %  elapsed 0 s"));
        console.out.str("");
        console.seconds = 10.0;
        progress.report("Encoding dictionary", 0.5);  // every report redrawn, not rate limited
        QCOMPARE(console.out.str(), std::string("\rEncoding dictionary 50 %  elapsed 10 s  eta 10 s"));
        console.out.str("");
        progress.report("Encoding dictionary", 0.5);  // the same text: nothing written
        QCOMPARE(console.out.str(), std::string());
        const std::size_t longest = std::string("Encoding dictionary 50 %  elapsed 10 s  eta 10 s").size();
        progress.report("Ranking queries", 0.0);  // shorter: padded over the longer one
        const std::string shorter = "Ranking queries 0 %  elapsed 0 s";
        QCOMPARE(console.out.str(), "\r" + shorter + std::string(longest - shorter.size(), ' '));
        console.out.str("");
        progress.clear();  // before the caller writes to stdout on the same screen
        QCOMPARE(console.out.str(), "\r" + std::string(shorter.size(), ' ') + "\r");
        console.out.str("");
        progress.report("Ranking queries", 1.0);
        progress.finish();
        const std::string last = "Ranking queries 100 %  elapsed 0 s";
        QCOMPARE(console.out.str(), "\r" + last + "\r" + std::string(last.size(), ' ') + "\r");
        QVERIFY(console.out.str().find('\n') == std::string::npos);  // no line left behind
    }
    void durations() {
        QCOMPARE(cli::formatDuration(0.4), std::string("0 s"));
        QCOMPARE(cli::formatDuration(59.0), std::string("59 s"));
        QCOMPARE(cli::formatDuration(245.0), std::string("4 min 05 s"));
        QCOMPARE(cli::formatDuration(7620.0), std::string("2 h 07 min"));
    }

    void sparseEvalWritesProgressLinesToALogAndLeavesStdoutAlone() {
        const QString log = file("eval.err");
        const auto r = runWithErrorFile(demoEval() << "--json", log, "0");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // Standard output: still exactly one JSON object, no progress in it.
        const auto report = r.json();
        QVERIFY(report.is_object());
        QCOMPARE(report["mentions"].get<int>(), 15);
        QVERIFY(!r.out.contains("progress"));
        QVERIFY(!r.out.contains('\r'));
        // Standard error: plain lines (a file is no terminal), naming the stages, the ranking
        // ending at 100 %.
        QVERIFY2(!r.err.contains('\r'), r.err.constData());
        std::vector<std::string> ranking;
        bool building = false;
        for (const auto& line : linesOf(r.err)) {
            QVERIFY2(startsWith(line, "progress: "), line.c_str());
            if (line.find("Building sparse index") != std::string::npos) building = true;
            if (line.find("Ranking queries") != std::string::npos) ranking.push_back(line);
        }
        QVERIFY2(building, r.err.constData());
        QVERIFY2(ranking.size() >= 2, r.err.constData());
        QVERIFY2(startsWith(ranking.front(), "progress: Ranking queries 0 %"), r.err.constData());
        QVERIFY2(startsWith(ranking.back(), "progress: Ranking queries 100 %"), r.err.constData());

        // The default interval says less on stderr; stdout is the same but for the clock.
        const auto quiet = runWithErrorFile(demoEval() << "--json", file("quiet.err"), nullptr);
        QVERIFY2(quiet.exitCode == 0, quiet.err.constData());
        QVERIFY2(withoutTimes(quiet.json()) == withoutTimes(report), quiet.out.constData());
        QVERIFY(quiet.err.count('\n') <= r.err.count('\n'));
        QVERIFY2(quiet.err.contains("Ranking queries 100 %"), quiet.err.constData());
    }
    void tableOutputHasNoProgressInIt() {
        const auto r = runWithErrorFile(demoEval(), file("table.err"), "0");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("acc@1"));
        QVERIFY(!r.out.contains("progress"));
        QVERIFY(!r.out.contains('\r'));
        QVERIFY2(r.err.contains("progress: Ranking queries 100 %"), r.err.constData());
    }
    void sparseIndexBuildIsReported() {
        const auto r = runWithErrorFile(
            {"index", "--train", test::demoFile("demo-train.txt"), "--dev", test::demoFile("demo-train.txt"), "--split",
             "dev", "--kb", test::demoFile("demo-kb.txt"), "--sparse-index", file("demo.index"), "--json"},
            file("index.err"), "0");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.json().contains("sparse"));
        QVERIFY2(r.err.contains("progress: Building sparse index 0 %"), r.err.constData());
        QVERIFY2(r.err.contains("progress: Building sparse index 100 %"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliProgress)
#include "test_cli_progress.moc"
