// SIGKILLs during `linkscope-cli train`: a run killed at arbitrary moments (inside a step, a
// checkpoint's writing or swap, a validation, the best model's swap) and resumed each time with
// `train --resume` ends exactly as an uninterrupted run does: same run.json, same log, same
// weights, nothing left beside its folders. The moments come from a fixed seed; where they land
// depends on the machine's speed, so each run of the suite tries other points.
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <random>

#include "train/run_directory.h"
#include "train_resume_support.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliTrainKills : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path path(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }
    QString qpath(const char* name) const { return QString::fromStdString(path(name).string()); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void killedRunsResumeToTheSameEnd() {
        test::writeTinyBiosynPreset(path("tiny.json"));
        QElapsedTimer clock;
        clock.start();
        const auto whole = test::runCli(test::newRunArguments(qpath("tiny.json"), qpath("whole")));
        QVERIFY2(whole.exitCode == 0, whole.err.constData());
        // The kills fall within the time a whole run takes (its start-up included).
        const int wholeMs = static_cast<int>(clock.elapsed());

        std::mt19937 rng(38);
        std::uniform_int_distribution<int> moment(wholeMs / 5, wholeMs * 4 / 5);
        int kills = 0;
        for (int attempt = 0; attempt < 4; ++attempt) {
            // Killed before its first checkpoint, a run is no run yet: it is started again.
            const QStringList arguments = train::isRunDirectory(path("killed"))
                                              ? test::resumeArguments(qpath("killed"))
                                              : test::newRunArguments(qpath("tiny.json"), qpath("killed"));
            kills += test::runAndKill(arguments, moment(rng));
        }
        QVERIFY2(kills > 0, "no run was killed: each ended before its moment");
        const auto last = test::runCli(train::isRunDirectory(path("killed"))
                                           ? test::resumeArguments(qpath("killed"))
                                           : test::newRunArguments(qpath("tiny.json"), qpath("killed")));
        QVERIFY2(last.exitCode == 0, last.err.constData());
        const QString difference = test::differenceFromReference(path("killed"), path("whole"));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }
};

QTEST_APPLESS_MAIN(TestCliTrainKills)
#include "test_cli_train_kills.moc"
