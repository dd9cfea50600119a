// The run directory without LibTorch (the GUI lists runs in any build): run.json's round trip,
// the preset's name kept in it (preset.json alone reads back as "preset"), run.json files of
// older versions, and malformed files.
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "error_of.h"
#include "fixtures.h"
#include "train/loop_state.h"
#include "train/run_directory.h"
#include "train/training_preset.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::train;
namespace fs = std::filesystem;

namespace {

using test::errorOf;

// run.json as the version before the preset's name wrote it.
const std::string kOldRunJson = R"({
  "status": "finished",
  "schedule": "paper",
  "device": "cpu",
  "epochs_done": 2,
  "best_epoch": 1,
  "best_dev_accuracy": 0.5,
  "untrained_dev_accuracy": -1,
  "sparse_weight": 0,
  "radius": 0,
  "seconds": 1.5,
  "error": ""
}
)";

// A preset as the trainer saves it in RUN/preset.json.
TrainingPreset savedPreset() {
    TrainingPreset preset;
    preset.name = "my-biosyn";
    preset.method = Method::BioSyn;
    preset.training.epochs = 3;
    return preset;
}

}  // namespace

class TestRunDirectory : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void runInfoRoundTrips() {
        const fs::path run = dir_.path("run");
        QVERIFY(!isRunDirectory(run));
        RunInfo info;
        info.status = "finished";
        info.preset = "tiny-biosyn";
        info.schedule = "short";
        info.device = "cuda:0";
        info.epochsDone = 7;
        info.bestEpoch = 5;
        info.bestDevAccuracy = 0.1 + 0.2;  // not a short decimal: doubles must round-trip exactly
        info.untrainedDevAccuracy = 1.0 / 3.0;
        info.sparseWeight = 2.718281828459045;
        info.radius = 11.000000000000002;
        info.seconds = 12345.678901234567;
        info.error = "line one\nline \"two\" \xc3\xa9";
        writeRunInfo(run, info);
        QCOMPARE(readRunInfo(run), info);
        QVERIFY(test::readFile(runInfoFile(run)).find("\"preset\": \"tiny-biosyn\"") != std::string::npos);
        QVERIFY(!isRunDirectory(run));  // no preset.json yet
        test::writeFile(presetFile(run), "{}");
        QVERIFY(isRunDirectory(run));

        // Written again, replaced whole; defaults round-trip too.
        writeRunInfo(run, RunInfo{});
        QCOMPARE(readRunInfo(run), RunInfo{});
        QCOMPARE(runInfoFile(run), run / "run.json");
        QCOMPARE(presetFile(run), run / "preset.json");
        QCOMPARE(modelDirectory(run), run / "model");
        QCOMPARE(checkpointDirectory(run), run / "checkpoint");
        QCOMPARE(logFile(run), run / "log.jsonl");
        QCOMPARE(devReportFile(run), run / "dev-report.json");

        // What JSON cannot hold is refused, not written as null.
        RunInfo nan = info;
        nan.seconds = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(errorOf([&] { writeRunInfo(run, nan); }).find("seconds") != std::string::npos);
        RunInfo unknownStatus = info;
        unknownStatus.status = "done";
        QVERIFY(errorOf([&] { writeRunInfo(run, unknownStatus); }).find("done") != std::string::npos);
        QCOMPARE(readRunInfo(run), RunInfo{});  // the refused writes left the file as it was
    }

    // The preset is saved as RUN/preset.json; loaded back through the run, it has the name
    // run.json recorded, not "preset" (the file's stem), and the settings of the file.
    void theRunNamesItsPreset() {
        const fs::path run = dir_.path("named");
        fs::create_directories(run);
        const TrainingPreset preset = savedPreset();
        test::writeFile(presetFile(run), preset.toJson());
        QCOMPARE(TrainingPreset::load(presetFile(run)).name, std::string("preset"));  // what the file alone says

        RunInfo info;
        info.preset = preset.name;
        writeRunInfo(run, info);
        const TrainingPreset loaded = loadRunPreset(run, readRunInfo(run));
        QCOMPARE(loaded.name, std::string("my-biosyn"));
        QCOMPARE(loaded, preset);

        // A name that is not a file stem (spaces, UTF-8) is kept as it is.
        info.preset = "biosyn (mine) \xc3\xa9";
        writeRunInfo(run, info);
        QCOMPARE(loadRunPreset(run, readRunInfo(run)).name, info.preset);

        // A broken preset.json is still reported as the preset file's error.
        test::writeFile(presetFile(run), "{\"method\": \"biosyn\",\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(loadRunPreset(run, info), presetFile(run), 1, "not valid JSON");
    }

    // run.json of a run trained before the name was recorded: it loads, the preset is named as
    // before ("preset"), and writing it again adds the key.
    void oldRunJsonWithoutThePresetLoads() {
        const fs::path run = dir_.path("old");
        fs::create_directories(run);
        test::writeFile(runInfoFile(run), kOldRunJson);
        test::writeFile(presetFile(run), savedPreset().toJson());
        const RunInfo info = readRunInfo(run);
        QCOMPARE(info.preset, std::string());
        QCOMPARE(info.status, std::string("finished"));
        QCOMPARE(info.epochsDone, std::size_t{2});
        QCOMPARE(info.seconds, 1.5);
        const TrainingPreset loaded = loadRunPreset(run, info);
        QCOMPARE(loaded.name, std::string("preset"));
        QCOMPARE(loaded.method, Method::BioSyn);
        QCOMPARE(loaded.training.epochs, std::size_t{3});

        RunInfo named = info;
        named.preset = "biosyn";
        writeRunInfo(run, named);
        QCOMPARE(readRunInfo(run), named);
    }

    void malformedRunJsonIsAParseError() {
        const std::string valid = kOldRunJson;
        const fs::path run = dir_.path("bad-run");
        fs::create_directories(run);
        const fs::path file = runInfoFile(run);
        const auto replaced = [&](const std::string& from, const std::string& to) {
            std::string text = valid;
            text.replace(text.find(from), from.size(), to);
            return text;
        };
        test::writeFile(file, valid);
        QCOMPARE(readRunInfo(run).seconds, 1.5);
        test::writeFile(file, replaced("\"schedule\"", "\"preset\": \"biosyn\", \"schedule\""));
        QCOMPARE(readRunInfo(run).preset, std::string("biosyn"));

        struct Case {
            std::string content;
            std::size_t line;
            const char* fragment;
        };
        const std::vector<Case> cases = {
            {replaced("\"device\": \"cpu\",", "\"device\": \"cpu\""), 5, "not valid JSON"},  // missing comma
            {valid.substr(0, 60), 4, "not valid JSON"},                                      // truncated
            {"", 1, "not valid JSON"},                                                       // empty file
            {"[1, 2]\n", 0, "JSON object"},
            {replaced("  \"radius\": 0,\n", ""), 0, "missing key \"radius\""},
            {replaced("\"error\": \"\"", "\"error\": \"\", \"lambda\": 3"), 0, "unknown key \"lambda\""},
            {replaced("\"epochs_done\": 2", "\"epochs_done\": \"2\""), 0,
             "\"epochs_done\" must be a non-negative integer"},
            {replaced("\"epochs_done\": 2", "\"epochs_done\": 1.5"), 0,
             "\"epochs_done\" must be a non-negative integer"},
            {replaced("\"best_epoch\": 1", "\"best_epoch\": -1"), 0, "\"best_epoch\" must be a non-negative integer"},
            {replaced("\"best_epoch\": 1", "\"best_epoch\": 3"), 0, "is after \"epochs_done\""},
            {replaced("\"status\": \"finished\"", "\"status\": \"done\""), 0, "\"status\" must be"},
            {replaced("\"status\": \"finished\"", "\"status\": 1"), 0, "\"status\" must be a string"},
            {replaced("\"schedule\"", "\"preset\": 3, \"schedule\""), 0, "\"preset\" must be a string"},
            {replaced("\"schedule\"", "\"preset\": null, \"schedule\""), 0, "\"preset\" must be a string"},
            {replaced("\"best_dev_accuracy\": 0.5", "\"best_dev_accuracy\": 1.5"), 0, "[0, 1]"},
            {replaced("\"seconds\": 1.5", "\"seconds\": null"), 0, "\"seconds\" must be a number"},
            {replaced("\"seconds\": 1.5", "\"seconds\": -2"), 0, "\"seconds\" must not be negative"},
            {replaced("\"device\": \"cpu\"", "\"device\": \"c\xff\""), 4, "UTF-8"},
            {replaced("\"schedule\"", "\"preset\": \"bio\xffsyn\", \"schedule\""), 3, "UTF-8"},
            // The collapse check's keys (absent in older runs: read as none).
            {replaced("\"schedule\"", "\"collapse\": 1, \"schedule\""), 0, "\"collapse\" must be a string"},
            {replaced("\"schedule\"", "\"collapsed_validations\": -1, \"schedule\""), 0,
             "\"collapsed_validations\" must be a non-negative integer"},
            {replaced("\"schedule\"", "\"collapsed_validations\": \"2\", \"schedule\""), 0,
             "\"collapsed_validations\" must be a non-negative integer"},
        };
        for (const Case& c : cases) {
            test::writeFile(file, c.content);
            LINKSCOPE_EXPECT_PARSE_ERROR(readRunInfo(run), file, c.line, c.fragment);
        }
        fs::remove(file);
        LINKSCOPE_EXPECT_PARSE_ERROR(readRunInfo(run), file, 0, "no such file");

        // A huge value (a long error message) is no problem either way.
        RunInfo failed;
        failed.status = "failed";
        failed.error = std::string(3 << 20, 'x');
        writeRunInfo(run, failed);
        QCOMPARE(readRunInfo(run), failed);
    }

    // checkpoint/state.json, what `train --resume` goes on from: a count that is not a whole
    // number in range would silently become another (1e30 read as some integer, -1 as 2^64-1,
    // 0.5 as 0), so each is refused naming the file.
    void checkpointStateRoundTripsAndRefusesBadCounts_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("fragment");
        const QString good = R"({"epoch": 1, "step": 4, "global_step": 12, "validated": false,
            "epochs_without_improvement": 0, "log_bytes": 2048, "scalars": {"sparse_weight": 1.5},
            "collapsed_validations": 2})";
        QTest::newRow("good") << good << "";
        QTest::newRow("log_bytes 1e30") << QString(good).replace("2048", "1e30")
                                        << "\"log_bytes\" must be a whole number";
        QTest::newRow("log_bytes 2^64") << QString(good).replace("2048", "18446744073709551616")
                                        << "\"log_bytes\" must be a whole number";
        QTest::newRow("log_bytes 2^60") << QString(good).replace("2048", "1152921504606846976")
                                        << "\"log_bytes\" must be a whole number";
        QTest::newRow("step -1") << QString(good).replace("\"step\": 4", "\"step\": -1")
                                 << "\"step\" must be a whole number";
        QTest::newRow("epoch 0.5") << QString(good).replace("\"epoch\": 1", "\"epoch\": 0.5")
                                   << "\"epoch\" must be a whole number";
        QTest::newRow("epoch missing") << QString(good).replace("\"epoch\": 1,", "") << "no \"epoch\"";
        QTest::newRow("scalar null") << QString(good).replace("1.5", "null") << "not a checkpoint state";
        QTest::newRow("array") << "[1, 2]"
                               << "not a JSON object";
    }
    void checkpointStateRoundTripsAndRefusesBadCounts() {
        QFETCH(QString, json);
        QFETCH(QString, fragment);
        const auto file = dir_.write("state.json", json.toStdString());
        if (fragment.isEmpty()) {
            const LoopState state = loopStateFrom(file);
            QCOMPARE(state.epoch, std::size_t{1});
            QCOMPARE(state.step, std::size_t{4});
            QCOMPARE(state.globalStep, std::size_t{12});
            QCOMPARE(state.validated, false);
            QCOMPARE(state.logBytes, std::uintmax_t{2048});
            QCOMPARE(state.collapsedValidations, std::size_t{2});
            QCOMPARE(state.scalars.at("sparse_weight"), 1.5);
            // What the trainer writes reads back the same.
            const auto again = dir_.write("state-again.json", toJson(state).dump());
            QCOMPARE(loopStateFrom(again).globalStep, std::size_t{12});
            return;
        }
        LINKSCOPE_EXPECT_PARSE_ERROR(loopStateFrom(file), file, 0, fragment.toStdString());
    }
};

QTEST_APPLESS_MAIN(TestRunDirectory)
#include "test_run_directory.moc"
