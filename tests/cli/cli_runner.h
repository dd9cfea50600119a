#pragma once
// Runs linkscope-cli as a user would and captures what it printed.
#include <QProcess>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace linkscope::test {

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    nlohmann::json json() const { return nlohmann::json::parse(out.constData()); }
};

/// A file of the demo project that ships in resources/demo.
inline QString demoFile(const char* name) {
    return QStringLiteral(LINKSCOPE_SOURCE_DIR "/resources/demo/") + QString::fromLatin1(name);
}

/// The demo project's corpora and KB for train and eval; its test split serves as dev (it has
/// no dev split of its own).
inline QStringList demoTrainingData() {
    return {QStringLiteral("--train"), demoFile("demo-train.txt"), QStringLiteral("--dev"),
            demoFile("demo-test.txt"), QStringLiteral("--kb"),     demoFile("demo-kb.txt")};
}

/// `eval` on the demo project's test split with `method`, the demo's train split also as dev.
inline QStringList demoEvalArguments(const QString& method = QStringLiteral("sparse")) {
    return {QStringLiteral("eval"),
            QStringLiteral("--train"),
            demoFile("demo-train.txt"),
            QStringLiteral("--dev"),
            demoFile("demo-train.txt"),
            QStringLiteral("--test"),
            demoFile("demo-test.txt"),
            QStringLiteral("--kb"),
            demoFile("demo-kb.txt"),
            QStringLiteral("--split"),
            QStringLiteral("test"),
            QStringLiteral("--method"),
            method};
}

/// Runs the CLI with `input` on its standard input (closed afterwards).
inline CliResult runCli(const QStringList& arguments, const QByteArray& input) {
    QProcess process;
    process.start(QStringLiteral(LINKSCOPE_CLI_PATH), arguments);
    process.write(input);
    process.closeWriteChannel();
    CliResult result;
    if (!process.waitForFinished(120000)) {
        process.kill();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

inline CliResult runCli(const QStringList& arguments) { return runCli(arguments, QByteArray()); }

}  // namespace linkscope::test
