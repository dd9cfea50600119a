// SIGKILLs during `linkscope-cli train`: a run killed at arbitrary moments (inside a step, a
// checkpoint's writing or swap, a validation, the best model's swap) and resumed each time with
// `train --resume` until it ends by itself ends exactly as an uninterrupted run does: same
// run.json, same log, same weights, nothing left beside its folders. The moments come from a
// fixed seed; where they land depends on the machine's speed, so each run of the suite tries
// other points.
//
// LINKSCOPE_TRAIN_KILLS=N asks for at least N kills (default 3; runs are trained and compared
// until that many have been killed), e.g. 100 for the reliability target:
//   LINKSCOPE_TRAIN_KILLS=100 build/default/bin/test_cli_train_kills
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <random>
#include <string>

#include "train/run_directory.h"
#include "train_resume_support.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliTrainKills : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path path(const std::string& name) const { return fs::path(dir_.path().toStdString()) / name; }
    QString qpath(const std::string& name) const { return QString::fromStdString(path(name).string()); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void killedRunsResumeToTheSameEnd() {
        const int wanted = qEnvironmentVariableIsSet("LINKSCOPE_TRAIN_KILLS")
                               ? qEnvironmentVariableIntValue("LINKSCOPE_TRAIN_KILLS")
                               : 3;
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
        for (int run = 0; kills < wanted; ++run) {
            const std::string name = "killed-" + std::to_string(run);
            int killedHere = 0;
            for (;;) {
                // Killed before its first checkpoint, a run is no run yet: it is started again.
                const QStringList arguments = train::isRunDirectory(path(name))
                                                  ? test::resumeArguments(qpath(name))
                                                  : test::newRunArguments(qpath("tiny.json"), qpath(name));
                const auto result = test::runAndKill(arguments, moment(rng));
                if (!result.killed) {
                    QVERIFY2(result.exitCode == 0,
                             qPrintable(QString::fromStdString(name) + (result.crashed ? ": crashed: " : ": failed: ") +
                                        QString::fromUtf8(result.err)));
                    break;
                }
                ++killedHere;
                QVERIFY2(killedHere < 50, "the run makes no progress between kills");
            }
            const QString difference = test::differenceFromReference(path(name), path("whole"));
            QVERIFY2(difference.isEmpty(), qPrintable(QString::fromStdString(name) + ": " + difference));
            kills += killedHere;
            fs::remove_all(path(name));
            QVERIFY2(run < wanted + 10, "the runs end before their moments: no kill lands");
        }
        qInfo("%d kills, every run resumed to the uninterrupted run's end", kills);
    }
};

QTEST_APPLESS_MAIN(TestCliTrainKills)
#include "test_cli_train_kills.moc"
