// What linkscope-cli does by default with what the encoder starts from, on the demo project:
// train and pretrain without --schedule take the schedule their start calls for (the new compact
// encoder "short", a Linkscope run folder "short"/"short-pretrained", a downloaded checkpoint the
// paper's), say which and why, and record it in run.json; --schedule still wins. A run folder goes
// wherever a checkpoint goes: eval --method dense|hybrid, encode, index, train --model; where a
// method makes no sense for it, the refusal says what to type.
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "test_data.h"
#include "tiny_run.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliStartDefaults : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QString demo(const char* name) { return test::demoFile(name); }
    static QStringList dataArguments() { return test::demoTrainingData(); }
    QStringList trainArguments(const QString& out) const {
        return QStringList{"train", "--preset", path("tiny-biosyn.json"), "--device", "cpu", "--out", out}
               << dataArguments();
    }
    static QStringList evalArguments(const QString& model) {
        return QStringList{"eval", "--model", model, "--split", "dev", "--device", "cpu", "--json"} << dataArguments();
    }
    nlohmann::json runJson(const char* run) const {
        return nlohmann::json::parse(test::readFile((fs::path(path(run).toStdString()) / "run.json")));
    }
    nlohmann::json presetJson(const char* run) const {
        return nlohmann::json::parse(test::readFile((fs::path(path(run).toStdString()) / "preset.json")));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // BioSyn's preset cut to one epoch of 8 mentions; its schedules told apart by their batch.
        auto biosyn = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/biosyn.json"));
        for (auto* schedule : {&biosyn["training"], &biosyn["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["max_train_mentions"] = 8;
        }
        biosyn["training"]["batch_size"] = 4;
        biosyn["schedules"]["short"]["batch_size"] = 8;
        test::writeFile(path("tiny-biosyn.json").toStdString(), biosyn.dump(2));
        auto sapbert = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/sapbert.json"));
        for (auto* schedule : {&sapbert["training"], &sapbert["schedules"]["short"]}) schedule->update({{"epochs", 1}});
        sapbert["training"]["batch_size"] = 16;
        sapbert["schedules"]["short"]["batch_size"] = 32;
        sapbert["self_alignment"]["max_pairs_per_concept"] = 2;
        test::writeFile(path("tiny-sapbert.json").toStdString(), sapbert.dump(2));
        auto compact = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/compact-encoder.json"));
        compact["config"]["hidden_size"] = 32;
        compact["config"]["num_hidden_layers"] = 1;
        compact["config"]["num_attention_heads"] = 2;
        compact["config"]["intermediate_size"] = 64;
        test::writeFile(path("tiny-compact.json").toStdString(), compact.dump(2));
        // A finished run folder (the triplet preset, a tiny random BERT) that reads every demo text.
        test::writeTinyTripletRun(path("triplet-run").toStdString(),
                                  {demo("demo-kb.txt").toStdString(), demo("demo-train.txt").toStdString(),
                                   demo("demo-test.txt").toStdString()});
    }

    void trainFromTheCompactEncoderTakesShort() {
        const auto r =
            test::runCli(trainArguments(path("compact-run")) << "--compact"
                                                             << "--compact-preset" << path("tiny-compact.json"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("schedule short: it starts from a new compact encoder (random weights)"),
                 r.out.constData());
        const auto info = runJson("compact-run");
        QCOMPARE(info["schedule"].get<std::string>(), std::string("short"));
        QVERIFY2(info["schedule_reason"].get<std::string>().find("random weights") != std::string::npos,
                 info.dump().c_str());
        QCOMPARE(presetJson("compact-run")["training"]["batch_size"].get<int>(), 8);  // short's, applied
    }

    void anExplicitScheduleWins() {
        const auto r =
            test::runCli(trainArguments(path("paper-run")) << "--schedule"
                                                           << "paper"
                                                           << "--compact"
                                                           << "--compact-preset" << path("tiny-compact.json"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("schedule paper: as asked"), r.out.constData());
        QCOMPARE(runJson("paper-run")["schedule"].get<std::string>(), std::string("paper"));
        QCOMPARE(runJson("paper-run")["schedule_reason"].get<std::string>(), std::string("as asked"));
        QCOMPARE(presetJson("paper-run")["training"]["batch_size"].get<int>(), 4);
    }

    void trainFromARunFolderOrACheckpoint() {
        // The run folder: a Linkscope run, "short" (this preset has no "short-pretrained").
        const auto fromRun = test::runCli(trainArguments(path("from-run")) << "--model" << path("triplet-run"));
        QVERIFY2(fromRun.exitCode == 0, fromRun.err.constData());
        QVERIFY2(fromRun.out.contains("schedule short: it starts from the run " + path("triplet-run").toUtf8()),
                 fromRun.out.constData());
        QCOMPARE(runJson("from-run")["schedule"].get<std::string>(), std::string("short"));
        // Its model/ folder copied out of it is a plain Hugging Face checkpoint, as a downloaded
        // one: the paper's.
        fs::copy(path("triplet-run/model").toStdString(), path("downloaded").toStdString(),
                 fs::copy_options::recursive);
        const auto fromCheckpoint =
            test::runCli(trainArguments(path("from-checkpoint")) << "--model" << path("downloaded"));
        QVERIFY2(fromCheckpoint.exitCode == 0, fromCheckpoint.err.constData());
        QVERIFY2(fromCheckpoint.out.contains("schedule paper: it starts from the checkpoint"),
                 fromCheckpoint.out.constData());
        QCOMPARE(runJson("from-checkpoint")["schedule"].get<std::string>(), std::string("paper"));
        QCOMPARE(presetJson("from-checkpoint")["training"]["batch_size"].get<int>(), 4);
    }

    void pretrainChoosesByItsStartToo() {
        const QStringList common{"pretrain", "--preset", path("tiny-sapbert.json"), "--kb", demo("demo-kb.txt"),
                                 "--device", "cpu"};
        const auto compact = test::runCli(QStringList(common)
                                          << "--compact-preset" << path("tiny-compact.json") << "--out" << path("sap"));
        QVERIFY2(compact.exitCode == 0, compact.err.constData());
        QVERIFY2(compact.out.contains("schedule short: it starts from a new compact encoder"), compact.out.constData());
        QCOMPARE(runJson("sap")["schedule"].get<std::string>(), std::string("short"));
        QCOMPARE(presetJson("sap")["training"]["batch_size"].get<int>(), 32);

        fs::copy(path("sap/model").toStdString(), path("sap-downloaded").toStdString(), fs::copy_options::recursive);
        const auto checkpoint = test::runCli(QStringList(common) << "--model" << path("sap-downloaded") << "--out"
                                                                 << path("sap-from-checkpoint"));
        QVERIFY2(checkpoint.exitCode == 0, checkpoint.err.constData());
        QVERIFY2(checkpoint.out.contains("schedule paper: it starts from the checkpoint"), checkpoint.out.constData());
        QCOMPARE(runJson("sap-from-checkpoint")["schedule"].get<std::string>(), std::string("paper"));
        QCOMPARE(presetJson("sap-from-checkpoint")["training"]["batch_size"].get<int>(), 16);
    }

    void evalLinksARunFolderWithTheDenseMethods() {
        for (const char* method : {"dense", "hybrid"}) {
            const auto viaRun = test::runCli(evalArguments(path("triplet-run")) << "--method" << method);
            QVERIFY2(viaRun.exitCode == 0, viaRun.err.constData());
            const auto report = viaRun.json();
            QCOMPARE(report["method"].get<std::string>(), std::string(method));
            QCOMPARE(report["model"].get<std::string>(), path("triplet-run/model").toStdString());
            QCOMPARE(report["mentions"].get<int>(), 15);
            // The same as its model/ folder given as a checkpoint.
            const auto viaModel = test::runCli(evalArguments(path("triplet-run/model")) << "--method" << method);
            QVERIFY2(viaModel.exitCode == 0, viaModel.err.constData());
            QCOMPARE(viaModel.json()["acc@k"], report["acc@k"]);
        }
        // --run takes --method dense the same way.
        const auto viaRunOption = test::runCli(QStringList{"eval", "--run", path("triplet-run"), "--method", "dense",
                                                           "--split", "dev", "--device", "cpu", "--json"}
                                               << dataArguments());
        QVERIFY2(viaRunOption.exitCode == 0, viaRunOption.err.constData());
        QCOMPARE(viaRunOption.json()["method"].get<std::string>(), std::string("dense"));
    }

    void whatMakesNoSenseForARunSaysWhatToType() {
        const auto sparse = test::runCli(evalArguments(path("triplet-run")) << "--method"
                                                                            << "sparse");
        QCOMPARE(sparse.exitCode, 1);
        QVERIFY2(sparse.err.contains("leave out --model " + path("triplet-run").toUtf8()), sparse.err.constData());
        QVERIFY2(sparse.err.contains("linkscope-cli eval --run " + path("triplet-run").toUtf8()),
                 sparse.err.constData());
        // A linker option without --method: the run links as its preset says, or add --method.
        const auto option = test::runCli(evalArguments(path("triplet-run")) << "--dense-kind"
                                                                            << "hnsw");
        QCOMPARE(option.exitCode, 1);
        QVERIFY2(option.err.contains("leave out --dense-kind") && option.err.contains("add --method dense"),
                 option.err.constData());
        // The datastore links as the method does.
        const auto knn = test::runCli(evalArguments(path("triplet-run")) << "--method"
                                                                         << "dense"
                                                                         << "--knn");
        QCOMPARE(knn.exitCode, 1);
        QVERIFY2(knn.err.contains("leave out --method dense"), knn.err.constData());
    }

    void encodeAndIndexTakeARunFolder() {
        const QByteArray input = "breast cancer\ncolon cancer\n";
        const auto viaRun = test::runCli({"encode", "--model", path("triplet-run")}, input);
        QVERIFY2(viaRun.exitCode == 0, viaRun.err.constData());
        QCOMPARE(viaRun.out.count('\n'), 2);
        QCOMPARE(test::runCli({"encode", "--model", path("triplet-run/model")}, input).out, viaRun.out);

        const auto index = test::runCli(QStringList{"index", "--split", "dev", "--model", path("triplet-run"),
                                                    "--dense-index", path("run.dense"), "--json"}
                                        << dataArguments());
        QVERIFY2(index.exitCode == 0, index.err.constData());
        QVERIFY(QFile::exists(path("run.dense")));
        // eval finds the index the run folder's model built.
        const auto loaded = test::runCli(evalArguments(path("triplet-run")) << "--method"
                                                                            << "dense"
                                                                            << "--dense-index" << path("run.dense"));
        QVERIFY2(loaded.exitCode == 0, loaded.err.constData());
        QVERIFY(loaded.json()["dense_index"].get<std::string>().starts_with("loaded from"));
    }
};

QTEST_APPLESS_MAIN(TestCliStartDefaults)
#include "test_cli_start_defaults.moc"
