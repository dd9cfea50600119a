// `linkscope-cli train --resume` after a kill inside a checkpoint's swap. The trainer writes a
// checkpoint beside its final name (checkpoint.new) and swaps it in by renames, moving the
// previous one to checkpoint.old; a kill between the renames leaves no checkpoint/ but a complete
// copy beside it, which --resume takes back (train/run_recovery.h) before the command reads the
// checkpoint. Each variant is resumed through the CLI and must end exactly as an uninterrupted
// run of the same preset: same run.json, same log, same weights.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

#include "train_resume_support.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliTrainResume : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path path(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }
    QString qpath(const char* name) const { return QString::fromStdString(path(name).string()); }

    // A run killed (SIGKILL) once its first epoch has ended and its checkpoint is being written:
    // the log's first "epoch_end" line is the sign.
    void killAfterTheFirstEpoch(const char* name) {
        QProcess process;
        process.setStandardOutputFile(QProcess::nullDevice());
        process.setStandardErrorFile(QProcess::nullDevice());
        process.start(QStringLiteral(LINKSCOPE_CLI_PATH), test::newRunArguments(qpath("tiny.json"), qpath(name)));
        QVERIFY(process.waitForStarted());
        const fs::path log = path(name) / "log.jsonl";
        while (!process.waitForFinished(10)) {
            if (fs::exists(log) && test::readFile(log).find("\"epoch_end\"") != std::string::npos) {
                process.kill();
                process.waitForFinished();
                break;
            }
        }
        QVERIFY2(fs::exists(path(name) / "run.json"), "the run was killed before its first checkpoint");
    }

    void expectSameEnd(const char* name) {
        const auto resumed = test::runCli(test::resumeArguments(qpath(name)));
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        const QString difference = test::differenceFromReference(path(name), path("whole"));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::writeTinyBiosynPreset(path("tiny.json"));
        const auto whole = test::runCli(test::newRunArguments(qpath("tiny.json"), qpath("whole")));
        QVERIFY2(whole.exitCode == 0, whole.err.constData());
        killAfterTheFirstEpoch("killed");
    }

    // Killed between the swap's two renames: the new copy complete (its state.json is written
    // last), no checkpoint/. The newest complete copy is the one to resume from.
    void theNewCopyIsTakenBack() {
        const fs::path run = path("new-copy");
        fs::copy(path("killed"), run, fs::copy_options::recursive);
        fs::remove_all(run / "checkpoint.new");  // one being written at the kill: incomplete
        if (fs::exists(run / "checkpoint")) fs::rename(run / "checkpoint", run / "checkpoint.new");
        QVERIFY(fs::exists(run / "checkpoint.new" / "state.json"));
        QVERIFY(!fs::exists(run / "checkpoint"));
        expectSameEnd("new-copy");
    }

    // Killed while the new copy was still being written, after the previous checkpoint was moved
    // aside: checkpoint.old complete, checkpoint.new without its state.json, no checkpoint/.
    void theOldCopyIsTakenBackWhenTheNewOneIsIncomplete() {
        const fs::path run = path("old-copy");
        fs::copy(path("killed"), run, fs::copy_options::recursive);
        fs::remove_all(run / "checkpoint.new");
        if (fs::exists(run / "checkpoint")) fs::rename(run / "checkpoint", run / "checkpoint.old");
        fs::create_directories(run / "checkpoint.new" / "model");
        fs::copy_file(run / "checkpoint.old" / "model" / "config.json",
                      run / "checkpoint.new" / "model" / "config.json");
        QVERIFY(fs::exists(run / "checkpoint.old" / "state.json"));
        expectSameEnd("old-copy");
    }

    // Killed between the renames of the best model's swap: model.old is the model run.json
    // describes, and it is taken back.
    void theKeptModelIsTakenBack() {
        const fs::path run = path("model-copy");
        fs::copy(path("killed"), run, fs::copy_options::recursive);
        fs::remove_all(run / "model.new");
        fs::remove_all(run / "model.old");
        fs::rename(run / "model", run / "model.old");
        expectSameEnd("model-copy");
    }

    // Killed after the last checkpoint's swap, before run.json was written: run.json is behind
    // the checkpoint (here the one of a run killed in its first epoch). The checkpoint's own copy
    // of run.json is what the resume starts from, so the run ends with what it did.
    void aRunJsonBehindTheCheckpointIsCaughtUp() {
        const fs::path run = path("run-json-behind");
        fs::copy(path("whole"), run, fs::copy_options::recursive);
        fs::copy_file(path("killed") / "run.json", run / "run.json", fs::copy_options::overwrite_existing);
        expectSameEnd("run-json-behind");
    }

    // Without any copy to take back, the refusal names what is missing, as before.
    void nothingToTakeBackIsRefused() {
        const fs::path run = path("no-copy");
        fs::copy(path("killed"), run, fs::copy_options::recursive);
        for (const char* folder : {"checkpoint", "checkpoint.new", "checkpoint.old"}) fs::remove_all(run / folder);
        const auto resumed = test::runCli(test::resumeArguments(qpath("no-copy")));
        QCOMPARE(resumed.exitCode, 1);
        QVERIFY2(resumed.err.contains("no checkpoint"), resumed.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliTrainResume)
#include "test_cli_train_resume.moc"
