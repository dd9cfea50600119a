// linkscope-cli train and eval --run as a user runs them on the demo project: a BioSyn preset cut
// to one epoch of eight mentions trains the compact encoder into a run directory (model, log,
// run.json), the run is evaluated as its method links, and the refusals a user meets (an
// unknown preset, a resume without checkpoint, conflicting options) say what to do.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "test_data.h"

using namespace linkscope;
namespace fs = std::filesystem;

class TestCliTrain : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    static QString demo(const char* name) { return test::demoFile(name); }
    static QStringList dataArguments() { return test::demoTrainingData(); }
    QStringList trainArguments(const QString& preset, const QString& out) const {
        return QStringList{"train",     "--preset", preset, "--schedule", "short",
                           "--compact", "--device", "cpu",  "--out",      out}
               << dataArguments();
    }
    QStringList evalRunArguments(const QString& option, const QString& run) const {
        return QStringList{"eval", option, run, "--split", "dev", "--device", "cpu"} << dataArguments();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // BioSyn's shipped preset with a schedule a test can afford: one epoch of 8 mentions.
        auto preset = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/biosyn.json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["max_train_mentions"] = 8;
        }
        test::writeFile(path("tiny-biosyn.json").toStdString(), preset.dump(2));

        const auto r = test::runCli(trainArguments(path("tiny-biosyn.json"), path("run")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // One line per epoch, then the summary.
        QVERIFY2(r.out.contains("epoch 1/1") && r.out.contains("dev Acc@1"), r.out.constData());
        QVERIFY2(r.out.contains("untrained") && r.out.contains("-> best"), r.out.constData());
        QVERIFY2(r.out.contains(QByteArray("model: ") + path("run/model").toUtf8()), r.out.constData());
    }

    void theRunDirectoryHoldsModelLogAndStatus() {
        const fs::path run = path("run").toStdString();
        for (const char* file : {"model/config.json", "model/model.safetensors", "model/vocab.txt", "preset.json",
                                 "run.json", "log.jsonl"})
            QVERIFY2(fs::exists(run / file), file);

        const auto info = nlohmann::json::parse(test::readFile(run / "run.json"));
        QCOMPARE(info["status"].get<std::string>(), std::string("finished"));
        // The preset's name (the stem of the file given): preset.json alone would say "preset".
        QCOMPARE(info["preset"].get<std::string>(), std::string("tiny-biosyn"));
        QCOMPARE(info["schedule"].get<std::string>(), std::string("short"));
        QCOMPARE(info["epochs_done"].get<int>(), 1);
        QCOMPARE(info["device"].get<std::string>(), std::string("cpu"));
        const double best = info["best_dev_accuracy"].get<double>();

        // Every log line is a JSON object with an event; the validations are among them, and the
        // kept model is the best of them (the untrained one competes).
        std::istringstream log(test::readFile(run / "log.jsonl"));
        std::string line;
        std::size_t lines = 0, epochs = 0;
        double bestLogged = -1.0;
        while (std::getline(log, line)) {
            const auto event = nlohmann::json::parse(line);  // throws (and fails the test) if not JSON
            QVERIFY(event.is_object() && event.contains("event"));
            ++lines;
            if (event["event"] == "epoch" || event["event"] == "validation") {
                epochs += event["event"] == "epoch";
                bestLogged = std::max(bestLogged, event["dev_acc1"].get<double>());
                QVERIFY(event.contains("distinct_top1") && event.contains("collapsed"));
            }
        }
        QVERIFY(lines >= 2);
        QVERIFY(epochs >= 1);
        QCOMPARE(best, bestLogged);
        QCOMPARE(info["untrained_dev_accuracy"].get<double>() <= best, true);

        // The preset as run: the short schedule applied.
        const auto preset = nlohmann::json::parse(test::readFile(run / "preset.json"));
        QCOMPARE(preset["method"].get<std::string>(), std::string("biosyn"));
        QCOMPARE(preset["training"]["max_train_mentions"].get<int>(), 8);
    }

    void evalRunLinksAsTheMethodDoes() {
        const auto table = test::runCli(evalRunArguments("--run", path("run")));
        QVERIFY2(table.exitCode == 0, table.err.constData());
        QVERIFY2(table.out.contains("acc@1") && table.out.contains("biosyn"), table.out.constData());
        QVERIFY2(table.out.contains("(preset tiny-biosyn)"), table.out.constData());

        const auto json = test::runCli(evalRunArguments("--run", path("run")) << "--json"
                                                                              << "--per-mention" << path("run.jsonl"));
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const auto report = json.json();
        QCOMPARE(report["method"].get<std::string>(), std::string("biosyn"));
        QCOMPARE(report["run"].get<std::string>(), path("run").toStdString());
        QCOMPARE(report["schedule"].get<std::string>(), std::string("short"));
        QCOMPARE(report["preset"].get<std::string>(), std::string("tiny-biosyn"));
        QCOMPARE(report["preset_file"].get<std::string>(),
                 (fs::path(path("run").toStdString()) / "preset.json").string());
        QVERIFY(report.contains("sparse_weight"));
        QCOMPARE(report["mentions"].get<int>(), 15);
        // The summary's Acc@1 is the share of the per-mention rows right at 1 (to 1e-12).
        const double accuracy = report["acc@1"].get<double>();
        std::istringstream rows(test::readFile(path("run.jsonl").toStdString()));
        int mentions = 0, right = 0;
        for (std::string line; std::getline(rows, line); ++mentions) {
            const auto row = nlohmann::json::parse(line);
            QVERIFY(row.contains("parts") && !row["parts"].empty() && row["parts"][0].contains("predictions"));
            if (row["correct@1"].get<bool>()) ++right;
        }
        QCOMPARE(mentions, 15);
        QVERIFY2(std::abs(accuracy - double(right) / mentions) < 1e-12, qPrintable(QString::number(accuracy)));

        // (Not compared with run.json's dev Acc@1: the trainer validates against the KB's names
        // alone, eval against BioSyn's dictionary, which adds the training mentions.)

        // --model RUN_DIR is the same evaluation.
        const auto viaModel = test::runCli(evalRunArguments("--model", path("run")) << "--json");
        QVERIFY2(viaModel.exitCode == 0, viaModel.err.constData());
        QCOMPARE(viaModel.json()["acc@k"], report["acc@k"]);

        // Options that choose another linker are refused rather than ignored, saying what to add
        // (--method dense links the run's model as a plain encoder: test_cli_start_defaults).
        const auto conflicting = test::runCli(evalRunArguments("--run", path("run")) << "--sparse-weight"
                                                                                     << "2");
        QCOMPARE(conflicting.exitCode, 1);
        QVERIFY2(conflicting.err.contains("--sparse-weight") && conflicting.err.contains("--method dense"),
                 conflicting.err.constData());
        // A folder that is no run.
        const auto notARun = test::runCli(evalRunArguments("--run", dir_.path()));
        QCOMPARE(notARun.exitCode, 1);
        QVERIFY2(notARun.err.contains("not a run directory"), notARun.err.constData());
    }

    void unknownPresetListsTheAvailableOnes() {
        const auto r = test::runCli(trainArguments("no-such-method", path("never")));
        QCOMPARE(r.exitCode, 1);
        for (const char* name : {"available", "biosyn", "belhd", "triplet", "prototype-srn", "knn-bioel"})
            QVERIFY2(r.err.contains(name), r.err.constData());
        QVERIFY(!QFile::exists(path("never")));
    }

    void resumeNeedsACheckpoint() {
        // An empty folder is no run.
        QVERIFY(QDir().mkpath(path("empty")));
        const auto empty = test::runCli(QStringList{"train", "--resume", "--out", path("empty")} << dataArguments());
        QCOMPARE(empty.exitCode, 1);
        QVERIFY2(empty.err.contains("not a run directory"), empty.err.constData());

        // A run without its checkpoint cannot be resumed.
        const fs::path bare = path("bare").toStdString();
        fs::create_directories(bare);
        fs::copy_file(path("run/run.json").toStdString(), bare / "run.json");
        fs::copy_file(path("run/preset.json").toStdString(), bare / "preset.json");
        const auto noCheckpoint =
            test::runCli(QStringList{"train", "--resume", "--out", path("bare")} << dataArguments());
        QCOMPARE(noCheckpoint.exitCode, 1);
        QVERIFY2(noCheckpoint.err.contains("no checkpoint"), noCheckpoint.err.constData());

        // A resume takes the preset and the encoder from the run: --compact is refused with it.
        const auto withCompact =
            test::runCli(QStringList{"train", "--resume", "--compact", "--out", path("run")} << dataArguments());
        QCOMPARE(withCompact.exitCode, 1);
        QVERIFY2(withCompact.err.contains("--compact"), withCompact.err.constData());
    }

    void resumingAFinishedRunKeepsIt() {
        const auto before = test::readFile(path("run/run.json").toStdString());
        const auto r =
            test::runCli(QStringList{"train", "--resume", "--device", "cpu", "--out", path("run")} << dataArguments());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // Resumed from the run's own preset.json, it keeps the preset's name.
        QVERIFY2(r.out.contains("resuming with the run's preset \"tiny-biosyn\""), r.out.constData());
        const auto info = nlohmann::json::parse(test::readFile(path("run/run.json").toStdString()));
        QCOMPARE(info["status"].get<std::string>(), std::string("finished"));
        QCOMPARE(info["preset"].get<std::string>(), std::string("tiny-biosyn"));
        QCOMPARE(info["epochs_done"].get<int>(), 1);
        QCOMPARE(info["best_dev_accuracy"], nlohmann::json::parse(before)["best_dev_accuracy"]);
    }

    // A run of an earlier version: run.json without the preset's name. It is evaluated and
    // resumed as before, its preset named after preset.json ("preset").
    void anOldRunWithoutThePresetNameStillLoads() {
        const fs::path old = path("old-run").toStdString();
        fs::copy(path("run").toStdString(), old, fs::copy_options::recursive);
        auto info = nlohmann::json::parse(test::readFile(old / "run.json"));
        QVERIFY(info.erase("preset") == 1);
        test::writeFile(old / "run.json", info.dump(2));

        const auto json = test::runCli(evalRunArguments("--run", path("old-run")) << "--json");
        QVERIFY2(json.exitCode == 0, json.err.constData());
        QCOMPARE(json.json()["preset"].get<std::string>(), std::string("preset"));
        QCOMPARE(json.json()["method"].get<std::string>(), std::string("biosyn"));

        const auto resumed = test::runCli(QStringList{"train", "--resume", "--device", "cpu", "--out", path("old-run")}
                                          << dataArguments());
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QCOMPARE(nlohmann::json::parse(test::readFile(old / "run.json"))["status"].get<std::string>(),
                 std::string("finished"));
    }

    // pretrain: SapBERT's self-alignment on the demo KB's synonyms into a run folder, which
    // `train --model` then fine-tunes as any checkpoint; a linking preset is refused.
    void pretrainThenFineTune() {
        auto preset = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/sapbert.json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["batch_size"] = 16;
        }
        test::writeFile(path("tiny-sapbert.json").toStdString(), preset.dump(2));
        auto compact = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/compact-encoder.json"));
        compact["config"]["hidden_size"] = 32;
        compact["config"]["num_hidden_layers"] = 1;
        compact["config"]["num_attention_heads"] = 2;
        compact["config"]["intermediate_size"] = 64;
        test::writeFile(path("tiny-compact.json").toStdString(), compact.dump(2));

        const auto pretrained =
            test::runCli({"pretrain", "--preset", path("tiny-sapbert.json"), "--schedule", "short", "--compact-preset",
                          path("tiny-compact.json"), "--kb", demo("demo-kb.txt"), "--dev", demo("demo-test.txt"),
                          "--device", "cpu", "--out", path("sap")});
        QVERIFY2(pretrained.exitCode == 0, pretrained.err.constData());
        QVERIFY2(pretrained.out.contains("pretraining (self-alignment") && pretrained.out.contains("fine-tune it with"),
                 pretrained.out.constData());
        const auto info = nlohmann::json::parse(test::readFile(path("sap/run.json").toStdString()));
        QCOMPARE(info["status"].get<std::string>(), std::string("finished"));
        QCOMPARE(info["preset"].get<std::string>(), std::string("tiny-sapbert"));
        QVERIFY(QFile::exists(path("sap/model/model.safetensors")));
        // Every method's markers are tokens of it (added tokens, as Hugging Face keeps them).
        const auto added = nlohmann::json::parse(test::readFile(path("sap/model/added_tokens.json").toStdString()));
        for (const char* marker : {"[S]", "[E]", "[START]", "[END]"}) QVERIFY2(added.contains(marker), marker);

        const auto tuned =
            test::runCli(QStringList{"train", "--preset", path("tiny-biosyn.json"), "--schedule", "short", "--model",
                                     path("sap"), "--device", "cpu", "--out", path("from-sap")}
                         << dataArguments());
        QVERIFY2(tuned.exitCode == 0, tuned.err.constData());
        // The fine-tuned model is the pretrained one's size, not the default compact encoder's.
        const auto config = nlohmann::json::parse(test::readFile(path("from-sap/model/config.json").toStdString()));
        QCOMPARE(config["hidden_size"].get<int>(), 32);

        const auto wrongPreset = test::runCli({"pretrain", "--preset", path("tiny-biosyn.json"), "--kb",
                                               demo("demo-kb.txt"), "--out", path("never-sap")});
        QCOMPARE(wrongPreset.exitCode, 1);
        QVERIFY2(wrongPreset.err.contains("not the self-alignment pretraining"), wrongPreset.err.constData());
    }

    // pretrain --mlm-corpus: the masked-LM stage reads the corpus's abstracts in OUT/mlm, then the
    // self-alignment starts from its model in OUT; --resume finds a finished stage and keeps it;
    // a masked-LM preset where the self-alignment's goes is refused, and the reverse.
    void pretrainWithAMaskedLmStage() {
        auto sapbert = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/sapbert.json"));
        for (auto* schedule : {&sapbert["training"], &sapbert["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["batch_size"] = 16;
        }
        test::writeFile(path("tiny-sap.json").toStdString(), sapbert.dump(2));
        auto mlm = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/mlm.json"));
        for (auto* schedule : {&mlm["training"], &mlm["schedules"]["short"]}) {
            (*schedule)["epochs"] = 2;
            (*schedule)["batch_size"] = 8;
        }
        mlm["masked_lm"]["held_out_every"] = 4;
        test::writeFile(path("tiny-mlm.json").toStdString(), mlm.dump(2));
        auto compact = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/compact-encoder.json"));
        compact["config"]["hidden_size"] = 32;
        compact["config"]["num_hidden_layers"] = 1;
        compact["config"]["num_attention_heads"] = 2;
        compact["config"]["intermediate_size"] = 64;
        test::writeFile(path("mlm-compact.json").toStdString(), compact.dump(2));
        const QStringList common{
            "--preset", path("tiny-sap.json"), "--mlm-preset", path("tiny-mlm.json"),  "--schedule", "short",
            "--kb",     demo("demo-kb.txt"),   "--mlm-corpus", demo("demo-train.txt"), "--device",   "cpu"};

        const auto both =
            test::runCli(QStringList{"pretrain"} << common << "--compact-preset" << path("mlm-compact.json") << "--out"
                                                 << path("mlm-sap"));
        QVERIFY2(both.exitCode == 0, both.err.constData());
        const qsizetype stage = both.out.indexOf("masked-LM stage (preset \"tiny-mlm\", schedule short)");
        const qsizetype alignment = both.out.indexOf("pretraining (self-alignment");
        QVERIFY2(stage >= 0 && alignment > stage, both.out.constData());
        QVERIFY2(both.out.contains("held-out masked-token accuracy"), both.out.constData());
        const auto stageInfo = nlohmann::json::parse(test::readFile(path("mlm-sap/mlm/run.json").toStdString()));
        QCOMPARE(stageInfo["status"].get<std::string>(), std::string("finished"));
        QCOMPARE(stageInfo["preset"].get<std::string>(), std::string("tiny-mlm"));
        QVERIFY(stageInfo["best_dev_accuracy"].get<double>() >= 0.0);  // held-out documents were scored
        const auto info = nlohmann::json::parse(test::readFile(path("mlm-sap/run.json").toStdString()));
        QCOMPARE(info["status"].get<std::string>(), std::string("finished"));
        QCOMPARE(info["preset"].get<std::string>(), std::string("tiny-sap"));
        // The self-alignment's encoder is the stage's: its size, its vocabulary, every marker.
        QCOMPARE(test::readFile(path("mlm-sap/model/vocab.txt").toStdString()),
                 test::readFile(path("mlm-sap/mlm/model/vocab.txt").toStdString()));
        const auto config = nlohmann::json::parse(test::readFile(path("mlm-sap/model/config.json").toStdString()));
        QCOMPARE(config["hidden_size"].get<int>(), 32);
        const auto added = nlohmann::json::parse(test::readFile(path("mlm-sap/model/added_tokens.json").toStdString()));
        for (const char* marker : {"[S]", "[E]", "[START]", "[END]"}) QVERIFY2(added.contains(marker), marker);

        // Stopped between the stages (the self-alignment's files gone): --resume keeps the
        // finished stage and runs the self-alignment from its model.
        for (const auto& entry : fs::directory_iterator(path("mlm-sap").toStdString()))
            if (entry.path().filename() != "mlm") fs::remove_all(entry.path());
        const auto resumed = test::runCli(QStringList{"pretrain", "--resume"} << common << "--out" << path("mlm-sap"));
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QVERIFY2(resumed.out.contains("masked-LM stage: finished in"), resumed.out.constData());
        QCOMPARE(
            nlohmann::json::parse(test::readFile(path("mlm-sap/run.json").toStdString()))["status"].get<std::string>(),
            std::string("finished"));

        // The presets in each other's places.
        const auto swapped =
            test::runCli({"pretrain", "--preset", path("tiny-sap.json"), "--mlm-preset", path("tiny-sap.json"), "--kb",
                          demo("demo-kb.txt"), "--mlm-corpus", demo("demo-train.txt"), "--compact-preset",
                          path("mlm-compact.json"), "--out", path("never-mlm")});
        QCOMPARE(swapped.exitCode, 1);
        QVERIFY2(swapped.err.contains("not the masked-LM stage"), swapped.err.constData());
        const auto reversed = test::runCli(
            {"pretrain", "--preset", path("tiny-mlm.json"), "--kb", demo("demo-kb.txt"), "--out", path("never-sap-2")});
        QCOMPARE(reversed.exitCode, 1);
        QVERIFY2(reversed.err.contains("not the self-alignment pretraining"), reversed.err.constData());
    }

    void theEncoderMustBeChosen() {
        const auto neither = test::runCli(QStringList{"train", "--preset", path("tiny-biosyn.json"), "--out", path("n")}
                                          << dataArguments());
        QCOMPARE(neither.exitCode, 1);
        QVERIFY2(neither.err.contains("--model") && neither.err.contains("--compact"), neither.err.constData());
        const auto both = test::runCli(trainArguments(path("tiny-biosyn.json"), path("b")) << "--model" << dir_.path());
        QCOMPARE(both.exitCode, 1);
        QVERIFY2(both.err.contains("not both"), both.err.constData());
        const auto badSchedule = test::runCli(QStringList{"train", "--preset", path("tiny-biosyn.json"), "--schedule",
                                                          "long", "--compact", "--out", path("s")}
                                              << dataArguments());
        QCOMPARE(badSchedule.exitCode, 1);
        QVERIFY2(badSchedule.err.contains("long") && badSchedule.err.contains("short"), badSchedule.err.constData());
        QVERIFY(!QFile::exists(path("n")) && !QFile::exists(path("b")) && !QFile::exists(path("s")));
    }
};

QTEST_APPLESS_MAIN(TestCliTrain)
#include "test_cli_train.moc"
