// The GUI with and without the dense engine: whether run linking and training are offered
// follows whether this build made the dense module (ui/dense_engine_loader.h), and in a build
// without LibTorch every way to them says in plain words that the dense engine is missing, with
// nothing started. Runs in both builds; LINKSCOPE_EXPECT_DENSE_MODULE says which this one is.
#include <QAction>
#include <QApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <memory>
#include <string>

#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "demo_project.h"
#include "dense_engine_loader.h"
#include "linking_menu.h"
#include "project/loaded_project.h"
#include "ranker_host.h"
#include "training_request.h"
#include "training_worker.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

class TestDenseAvailability : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::shared_ptr<const LoadedProject> project_;

    static constexpr bool kExpectModule = LINKSCOPE_EXPECT_DENSE_MODULE;

    void openSession(CurationSession& session) const {
        QSignalSpy ready(session.rankers(), &RankerHost::rankerReady);
        QCOMPARE(session.open(project_, dir_.filePath(QStringLiteral("demo.linkscope"))), QString());
        QVERIFY(ready.wait(30000));
    }

    static bool namesTheMissingEngine(const QString& message) {
        return message.contains(QStringLiteral("dense engine (LibTorch)")) &&
               message.contains(QStringLiteral("this build"));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::keepSettingsIn(dir_);
        project_ = test::loadDemoProject();
    }

    // Offered exactly where the build made the module; asking does not load it.
    void availabilityFollowsTheBuild() {
        QCOMPARE(DenseEngineLoader::installed(), kExpectModule);
        QCOMPARE(RankerHost::runLinkingAvailable(), kExpectModule);
        QCOMPARE(TrainingWorker::isAvailable(), kExpectModule);
        QVERIFY(namesTheMissingEngine(DenseEngineLoader::missingMessage()));
    }

    // The Linking menu: with the module, "Link with a trained run" is enabled once a project is
    // open; without it, it stays disabled and its tooltip says why.
    void theLinkingMenuSaysWhy() {
        CurationSession session;
        LinkingMenu menu(&session, nullptr);
        QAction* linkRun = menu.findChild<QAction*>(QStringLiteral("linkWithRun"));
        QVERIFY(linkRun);
        openSession(session);
        Q_EMIT menu.aboutToShow();
        QCOMPARE(linkRun->isEnabled(), kExpectModule);
        if (kExpectModule)
            QVERIFY(linkRun->toolTip() != DenseEngineLoader::missingMessage());
        else
            QCOMPARE(linkRun->toolTip(), DenseEngineLoader::missingMessage());
    }

    // Without the module, linking with a run reports the missing engine at once, ends as a failed
    // linking does, and starts no worker; the sparse ranker stays in use.
    void linkingWithARunSaysTheEngineIsMissing() {
        if (kExpectModule)
            QSKIP("this build has the dense module: linking with a run is tested in test_model_curation");
        CurationSession session;
        openSession(session);
        QSignalSpy errors(session.rankers(), &RankerHost::errorOccurred);
        QSignalSpy linked(session.rankers(), &RankerHost::runLinked);
        QSignalSpy cancelled(session.rankers(), &RankerHost::runLinkingCancelled);
        session.rankers()->linkWithRun(dir_.filePath(QStringLiteral("no-run")), curation::LinkMode::Knn);
        QCOMPARE(errors.count(), 1);
        QVERIFY2(namesTheMissingEngine(errors.first().first().toString()),
                 qPrintable(errors.first().first().toString()));
        QCOMPARE(cancelled.count(), 1);  // as a failed linking ends
        QVERIFY(!session.rankers()->runLinkingUnderWay());
        QCOMPARE(linked.count(), 0);
        QVERIFY(session.rankers()->runRanker() == nullptr);
    }

    // Without the module, loading the engine throws the plain message, not a loader's error.
    void loadingTheEngineSaysItIsMissing() {
        if (kExpectModule) QSKIP("this build has the dense module: loading it is tested where a run is linked");
        try {
            DenseEngineLoader::load();
            QFAIL("the dense engine loaded in a build without it");
        } catch (const Error& error) {
            QVERIFY2(namesTheMissingEngine(QString::fromStdString(error.what())), error.what());
        }
    }

    // Without the module, a training fails with the plain message and writes no run.
    void trainingSaysTheEngineIsMissing() {
        if (kExpectModule) QSKIP("this build has the dense module: training is tested in test_training_panel");
        TrainingWorker worker;
        QSignalSpy failed(&worker, &TrainingWorker::failed);
        QSignalSpy finished(&worker, &TrainingWorker::finished);
        TrainingRequest request;
        request.preset = QStringLiteral("triplet");
        request.modelsDirectory = QString::fromStdString((fs::path(LINKSCOPE_SOURCE_DIR) / "models").string());
        request.runDirectory = dir_.filePath(QStringLiteral("runs/never"));
        QVERIFY(worker.start(project_, request));
        QVERIFY(failed.wait(30000));
        QCOMPARE(finished.count(), 0);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("dense engine (LibTorch)")), qPrintable(message));
        QVERIFY(!QFileInfo::exists(request.runDirectory));
        QVERIFY(!worker.isRunning());
    }
};

QTEST_MAIN(TestDenseAvailability)
#include "test_dense_availability.moc"
