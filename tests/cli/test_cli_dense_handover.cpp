// linkscope-cli and linkscope-cli-dense (app/cli/dense_engine.h): the commands that use no model
// run without LibTorch in the process, a model command typed to linkscope-cli runs in
// linkscope-cli-dense, and where there is none the command says it needs the dense engine.
// What the dynamic loader loads is read from its own trace (LD_DEBUG=libs on standard error).
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "cli_runner.h"

using namespace linkscope;

namespace {

/// `program` run with `arguments` and the dynamic loader's trace of the libraries it loads.
test::CliResult runTraced(const QString& program, const QStringList& arguments) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("libs"));
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    process.closeWriteChannel();
    test::CliResult result;
    if (!process.waitForFinished(120000)) {
        process.kill();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

bool loadedTorch(const test::CliResult& r) { return r.err.contains("libtorch") || r.err.contains("libc10"); }

QStringList initModelArguments(const QString& out) {
    return {QStringLiteral("init-model"),
            QStringLiteral("--preset"),
            QStringLiteral(LINKSCOPE_SOURCE_DIR "/models/compact-encoder.json"),
            QStringLiteral("--kb"),
            test::demoFile("demo-kb.txt"),
            QStringLiteral("--corpus"),
            test::demoFile("demo-train.txt"),
            QStringLiteral("--out"),
            out};
}

/// simulate-curation's mention-level review on the demo project, `extra` appended.
QStringList reviewArguments(const QStringList& extra = {}) {
    return QStringList{QStringLiteral("simulate-curation"), QStringLiteral("--order"), QStringLiteral("queue"),
                       QStringLiteral("--split"),           QStringLiteral("dev"),     QStringLiteral("--json")}
           << test::demoTrainingData() << extra;
}

}  // namespace

class TestCliDenseHandover : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

    /// linkscope-cli copied to DIR/bin/ (its libraries found by its build tree RUNPATH), alone or
    /// with linkscope-cli-dense where an installed package has it, DIR/lib/linkscope/.
    QString copyOfCli(const char* folder, bool withDense) const {
        namespace fs = std::filesystem;
        const fs::path root = path(folder).toStdString();
        fs::create_directories(root / "bin");
        fs::copy_file(LINKSCOPE_CLI_PATH, root / "bin" / "linkscope-cli");
#ifdef LINKSCOPE_CLI_DENSE_PATH
        if (withDense) {
            fs::create_directories(root / "lib" / "linkscope");
            fs::copy_file(LINKSCOPE_CLI_DENSE_PATH, root / "lib" / "linkscope" / "linkscope-cli-dense");
        }
#else
        (void)withDense;
#endif
        return QString::fromStdString((root / "bin" / "linkscope-cli").string());
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void versionLoadsNoLibTorch() {
        const auto r = runTraced(QStringLiteral(LINKSCOPE_CLI_PATH), {QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.trimmed().isEmpty());
        QVERIFY2(r.err.contains("calling init"), "the loader wrote no trace: LD_DEBUG=libs had no effect");
        QVERIFY2(!loadedTorch(r), r.err.constData());
    }

    void statsOnTheDemoLoadsNoLibTorch() {
        const auto r = runTraced(QStringLiteral(LINKSCOPE_CLI_PATH),
                                 {QStringLiteral("stats"), QStringLiteral("--corpus"), test::demoFile("demo-train.txt"),
                                  QStringLiteral("--kb"), test::demoFile("demo-kb.txt"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.json()["kb"]["entities"].get<int>(), 35);
        QVERIFY2(!loadedTorch(r), r.err.constData());
    }

    void sparseEvalLoadsNoLibTorch() {
        const auto r =
            runTraced(QStringLiteral(LINKSCOPE_CLI_PATH), test::demoEvalArguments() << QStringLiteral("--json"));
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());
        QVERIFY2(!loadedTorch(r), "sparse eval loaded LibTorch");
    }

    void sparseReviewSimulationLoadsNoLibTorch() {
        const auto r = runTraced(QStringLiteral(LINKSCOPE_CLI_PATH), reviewArguments());
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());
        const auto report = r.json();
        QVERIFY(report["mentions"].get<int>() > 0);
        QCOMPARE(report["walks"].size(), std::size_t{1});
        QVERIFY(report["linking"].get<std::string>().starts_with("sparse"));
        QVERIFY2(!loadedTorch(r), "simulate-curation with the sparse ranker loaded LibTorch");
    }

    // A run is linked by linkscope-cli-dense: the folder here is no run, which it names.
    void reviewSimulationWithARunRunsInTheDenseEngine() {
#ifndef LINKSCOPE_CLI_DENSE_PATH
        QSKIP("this build has no dense engine (LibTorch)");
#else
        const auto r = runTraced(QStringLiteral(LINKSCOPE_CLI_PATH),
                                 reviewArguments({QStringLiteral("--run"), dir_.path(), QStringLiteral("--knn")}));
        QVERIFY(r.exitCode != 0);
        QVERIFY2(loadedTorch(r), "simulate-curation --run ran without LibTorch");
        QVERIFY2(r.err.contains(dir_.path().toUtf8()), r.err.right(2000).constData());
        QVERIFY(!r.err.contains("needs the dense engine"));
#endif
    }

    void modelCommandRunsInTheDenseEngine() {
#ifndef LINKSCOPE_CLI_DENSE_PATH
        QSKIP("this build has no dense engine (LibTorch)");
#else
        const auto r = runTraced(QStringLiteral(LINKSCOPE_CLI_PATH), initModelArguments(path("compact")));
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());
        QVERIFY(r.out.contains("compact encoder written"));
        QVERIFY(std::filesystem::exists(path("compact").toStdString() + "/config.json"));
        QVERIFY2(loadedTorch(r), "init-model ran without LibTorch");
        // Options of a command that exists only in linkscope-cli-dense: its help, through linkscope-cli.
        const auto help = test::runCli({QStringLiteral("train"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("--preset"));
#endif
    }

    void denseEngineFoundInTheLibraryFolder() {
#ifndef LINKSCOPE_CLI_DENSE_PATH
        QSKIP("this build has no dense engine (LibTorch)");
#else
        const QString cli = copyOfCli("installed", true);
        QProcess process;
        process.start(cli, initModelArguments(path("installed-compact")));
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().right(2000).constData());
        QVERIFY(std::filesystem::exists(path("installed-compact").toStdString() + "/config.json"));
#endif
    }

    void withoutTheDenseEngineModelCommandsSaySo() {
        const QString cli = copyOfCli("light-only", false);
        // A usage error's exit status, as for an option value out of its set.
        QProcess usage;
        usage.start(cli, test::demoEvalArguments(QStringLiteral("no-such-method")));
        QVERIFY(usage.waitForFinished(120000));
        const int usageStatus = usage.exitCode();
        QVERIFY(usageStatus != 0);

        const QList<QStringList> modelCommands = {
            initModelArguments(path("never-written")),
            {QStringLiteral("train"), QStringLiteral("--help")},
            test::demoEvalArguments(QStringLiteral("dense")) << QStringLiteral("--model") << dir_.path(),
            reviewArguments({QStringLiteral("--run"), dir_.path(), QStringLiteral("--knn")}),
        };
        for (const auto& arguments : modelCommands) {
            QProcess process;
            process.start(cli, arguments);
            QVERIFY(process.waitForFinished(120000));
            const QByteArray err = process.readAllStandardError();
            QVERIFY2(process.readAllStandardOutput().isEmpty(), qPrintable(arguments.join(' ')));
            QCOMPARE(process.exitCode(), usageStatus);
            QVERIFY2(err.contains("needs the dense engine (LibTorch), which this build of linkscope-cli lacks"),
                     err.constData());
        }
        QVERIFY(!std::filesystem::exists(path("never-written").toStdString()));
        // What needs no model still runs.
        QProcess version;
        version.start(cli, {QStringLiteral("--version")});
        QVERIFY(version.waitForFinished(120000));
        QCOMPARE(version.exitCode(), 0);
        QProcess review;
        review.start(cli, reviewArguments());
        QVERIFY(review.waitForFinished(120000));
        QVERIFY2(review.exitCode() == 0, review.readAllStandardError().right(2000).constData());
    }
};

QTEST_GUILESS_MAIN(TestCliDenseHandover)
#include "test_cli_dense_handover.moc"
