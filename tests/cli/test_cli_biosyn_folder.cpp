// A BioSyn released model folder (dmis-lab/biosyn-*) as the hybrid linker's model: eval and link
// take the lambda of its sparse_weight.pt and say so; its pickled scikit-learn vectorizer
// (sparse_encoder.pk) is never unpickled, the sparse index is refit, and the command says that too.
// The folder is written by the test: a tiny BERT in safetensors, a hand-built sparse_weight.pt and
// a sparse_encoder.pk whose pickle would run os.system if anything unpickled it.
#include <QFileInfo>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixtures.h"
#include "tiny_checkpoint_folder.h"
#include "torch_file_builder.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliBioSynFolder : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    QString folder() const { return QString::fromStdString(dir_.path("biosyn").string()); }

private Q_SLOTS:
    void initTestCase() {
        const auto biosyn = dir_.path("biosyn");
        test::writeTinyCheckpoint(biosyn, false);
        const std::string pickle = test::PickleBuilder().tensor("FloatStorage", "0", 1, 0, {}, {}).stop().bytes();
        test::writeFile(biosyn / "sparse_weight.pt", test::storedZip({{"archive/data.pkl", pickle},
                                                                      {"archive/data/0", test::floatBytes({2.5f})},
                                                                      {"archive/version", "3\n"}}));
        test::writeFile(
            biosyn / "sparse_encoder.pk",
            test::PickleBuilder().global("os", "system").string("touch unpickled").raw("\x85").reduce().stop().bytes());
    }

    void evalTakesTheLambdaAndRefitsTheSparseIndex() {
        const auto r =
            test::runCli(test::demoEvalArguments(QStringLiteral("hybrid")) << "--model" << folder() << "--device"
                                                                           << "cpu"
                                                                           << "--json");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray weightFile = (dir_.path("biosyn") / "sparse_weight.pt").string().c_str();
        QVERIFY2(r.err.contains("note: hybrid lambda 2.5 from " + weightFile + " (BioSyn's learned sparse weight)"),
                 r.err.constData());
        QVERIFY2(r.err.contains("sparse_encoder.pk (a pickled scikit-learn vectorizer) is not loaded: unpickling it "
                                "would run code. The sparse index is refit from the dictionary with BioSyn's settings"),
                 r.err.constData());
        QCOMPARE(r.json()["sparse_weight"].get<std::string>(), std::string("2.5"));
        QVERIFY(!QFileInfo::exists(QStringLiteral("unpickled")));

        // A lambda given on the command line wins, and the note says which one was not used.
        const auto given =
            test::runCli(test::demoEvalArguments(QStringLiteral("hybrid")) << "--model" << folder() << "--device"
                                                                           << "cpu"
                                                                           << "--sparse-weight"
                                                                           << "1"
                                                                           << "--json");
        QVERIFY2(given.exitCode == 0, given.err.constData());
        QVERIFY2(given.err.contains("note: --sparse-weight 1 is used, not 2.5 from " + weightFile),
                 given.err.constData());
        QCOMPARE(given.json()["sparse_weight"].get<std::string>(), std::string("1"));
    }

    void linkSaysTheSame() {
        const auto out = dir_.path("linked.txt");
        const auto r = test::runCli({"link", "--corpus", test::demoFile("demo-test.txt"), "--kb",
                                     test::demoFile("demo-kb.txt"), "--method", "hybrid", "--model", folder(),
                                     "--device", "cpu", "--out", QString::fromStdString(out.string())});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("note: hybrid lambda 2.5 from"), r.err.constData());
        QVERIFY2(r.err.contains("is not loaded: unpickling it would run code. The sparse index is refit"),
                 r.err.constData());
        QVERIFY(fs::file_size(out) > 0);
    }
};

QTEST_GUILESS_MAIN(TestCliBioSynFolder)
#include "test_cli_biosyn_folder.moc"
