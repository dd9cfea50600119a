// Counts given on the command line that no memory holds end in a plain error naming the option,
// exit status 1, nothing on standard output: compare --resamples and eval --k beyond their
// maximums.
#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;

class TestCliValueLimits : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString file(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QStringList evalArguments() { return test::demoEvalArguments(); }

private Q_SLOTS:
    void initTestCase() {
        const auto r = test::runCli(evalArguments() << "--per-mention" << file("run.jsonl"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void hugeResampleCountIsAPlainError() {
        for (const char* count : {"1000000000000", "1000001"}) {
            const auto r = test::runCli({"compare", file("run.jsonl"), file("run.jsonl"), "--resamples", count});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(
                r.err.contains("compare: --resamples " + QByteArray(count) + " is more than the maximum of 1000000"),
                r.err.constData());
            QVERIFY(!r.err.contains("bad_alloc"));
            QVERIFY(r.out.isEmpty());
        }
        // The same for the report of three runs or more.
        const auto many = test::runCli(
            {"compare", file("run.jsonl"), file("run.jsonl"), file("run.jsonl"), "--resamples", "1000000000000"});
        QCOMPARE(many.exitCode, 1);
        QVERIFY2(many.err.contains("--resamples 1000000000000"), many.err.constData());
    }

    void hugeRankingDepthIsAPlainError() {
        for (const char* depth : {"1000000000000", "18446744073709551615"}) {
            const auto r = test::runCli(evalArguments() << "--k" << depth);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(
                r.err.contains("eval: --k " + QByteArray(depth) + " is more than the maximum ranking depth of 100000"),
                r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
        const auto deepest = test::runCli(evalArguments() << "--k"
                                                          << "100000"
                                                          << "--json");
        QVERIFY2(deepest.exitCode == 0, deepest.err.constData());
    }

    void theMaximumItselfRuns() {
        const auto r =
            test::runCli({"compare", file("run.jsonl"), file("run.jsonl"), "--resamples", "1000000", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["difference"]["resamples"].get<std::size_t>(), std::size_t{1000000});
    }
};

QTEST_GUILESS_MAIN(TestCliValueLimits)
#include "test_cli_value_limits.moc"
