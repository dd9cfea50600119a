#pragma once
// What the CLI's resume suites share: a BioSyn preset cut to two epochs of four steps (eight
// mentions, batches of two) with a checkpoint after every step, so that a resume can start
// mid-epoch (from the checkpoint's candidates.bin), the arguments that train it on the demo
// project, and the comparison of a run with an uninterrupted one. Needs LibTorch (the CLI's
// train command).
#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "test_data.h"

namespace linkscope::test {

inline void writeTinyBiosynPreset(const std::filesystem::path& file) {
    auto preset = nlohmann::json::parse(readFile(LINKSCOPE_SOURCE_DIR "/models/biosyn.json"));
    for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
        (*schedule)["epochs"] = 2;
        (*schedule)["max_train_mentions"] = 8;
        (*schedule)["batch_size"] = 2;
    }
    writeFile(file, preset.dump(2));
}

/// `train` of a new run of `preset` into `out`, a checkpoint after every step.
inline QStringList newRunArguments(const QString& preset, const QString& out) {
    return QStringList{"train", "--preset",           preset, "--schedule", "short", "--compact", "--device",
                       "cpu",   "--checkpoint-steps", "1",    "--out",      out}
           << demoTrainingData();
}

/// `train --resume` of the run in `out`, as the CLI prints it to resume.
inline QStringList resumeArguments(const QString& out) {
    return QStringList{"train", "--resume", "--device", "cpu", "--checkpoint-steps", "1", "--out", out}
           << demoTrainingData();
}

/// The log's lines without their timings (seconds, examples per second): what a resumed run must
/// have logged as the uninterrupted one did.
inline std::vector<nlohmann::json> loggedEvents(const std::filesystem::path& run) {
    std::vector<nlohmann::json> events;
    std::istringstream log(readFile(run / "log.jsonl"));
    for (std::string line; std::getline(log, line);) {
        auto event = nlohmann::json::parse(line);
        event.erase("seconds");
        event.erase("examples_per_second");
        events.push_back(std::move(event));
    }
    return events;
}

/// Empty when the run in `run` ended as the uninterrupted `reference` did: finished, the same
/// run.json (but its timings), the same log (but its timings), the same final weights (the
/// checkpoint's model, bit for bit: the trainer is deterministic on the CPU) and kept model.
/// Otherwise what differs.
inline QString differenceFromReference(const std::filesystem::path& run, const std::filesystem::path& reference) {
    namespace fs = std::filesystem;
    auto info = nlohmann::json::parse(readFile(run / "run.json"));
    auto expected = nlohmann::json::parse(readFile(reference / "run.json"));
    if (info["status"] != "finished") return "status " + QString::fromStdString(info["status"].dump());
    info.erase("seconds");
    expected.erase("seconds");
    if (info != expected)
        return "run.json differs: " + QString::fromStdString(info.dump()) + " vs " +
               QString::fromStdString(expected.dump());
    if (loggedEvents(run) != loggedEvents(reference))
        return "log.jsonl differs:\n" + QString::fromStdString(readFile(run / "log.jsonl")) + "\nvs\n" +
               QString::fromStdString(readFile(reference / "log.jsonl"));
    for (const char* file : {"checkpoint/model/model.safetensors", "model/model.safetensors", "model/vocab.txt"})
        if (!fs::exists(run / file) || readFile(run / file) != readFile(reference / file))
            return QString::fromLatin1(file) + " differs from the uninterrupted run's";
    for (const char* leftover : {"checkpoint.new", "checkpoint.old", "model.new", "model.old"})
        if (fs::exists(run / leftover)) return QString::fromLatin1(leftover) + " is left behind";
    return {};
}

/// How a run of the CLI that may be killed ended.
struct KillResult {
    bool killed = false;
    bool crashed = false;  ///< ended by a signal of its own (not killed here)
    int exitCode = -1;     ///< when it exited
    QByteArray err;        ///< its standard error, when not killed
};

/// Starts `linkscope-cli arguments` and kills it (SIGKILL) after `milliseconds`, unless it ends
/// first.
inline KillResult runAndKill(const QStringList& arguments, int milliseconds) {
    QProcess process;
    process.setStandardOutputFile(QProcess::nullDevice());
    process.start(QStringLiteral(LINKSCOPE_CLI_PATH), arguments);
    KillResult result;
    if (!process.waitForStarted()) return result;
    if (process.waitForFinished(milliseconds)) {
        result.crashed = process.exitStatus() == QProcess::CrashExit;
        result.exitCode = result.crashed ? -1 : process.exitCode();
        result.err = process.readAllStandardError();
        return result;
    }
    process.kill();
    process.waitForFinished();
    result.killed = true;
    return result;
}

}  // namespace linkscope::test
