#pragma once
// What the shard suites share: a corpus of several documents, and running `link --shard I/N` for
// every shard, two at a time.
#include <QProcess>
#include <QStringList>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "fixtures.h"

namespace linkscope::test {

inline QString q(const std::filesystem::path& path) { return QString::fromStdString(path.string()); }

// A PubTator corpus of several documents with blank lines around them: the demo's train and
// test splits, one after the other.
inline std::string demoCorpus() {
    return "\n\n" + readFile(demoFile("demo-train.txt").toStdString()) + "\n" +
           readFile(demoFile("demo-test.txt").toStdString()) + "\n\n";
}

inline QStringList linkArguments(const std::filesystem::path& corpus, const std::filesystem::path& out,
                                 const QStringList& more = {}) {
    return QStringList{"link", "--corpus", q(corpus), "--kb", demoFile("demo-kb.txt"), "--out", q(out)} + more;
}

// Runs the shards of `count` two at a time; every one must succeed. Returns their standard outputs.
inline QStringList runShards(const std::filesystem::path& corpus, const std::filesystem::path& folder, int count,
                             const QStringList& more = {}) {
    QStringList outputs;
    for (int first = 0; first < count; first += 2) {
        std::vector<std::unique_ptr<QProcess>> running;
        for (int i = first; i < std::min(count, first + 2); ++i) {
            auto process = std::make_unique<QProcess>();
            process->start(
                QStringLiteral(LINKSCOPE_CLI_PATH),
                linkArguments(corpus, folder, QStringList{"--shard", QString("%1/%2").arg(i).arg(count)} + more));
            running.push_back(std::move(process));
        }
        for (auto& process : running) {
            if (!process->waitForFinished(60000)) return {};
            if (process->exitCode() != 0) return {QString::fromUtf8(process->readAllStandardError())};
            outputs << QString::fromUtf8(process->readAllStandardOutput());
        }
    }
    return outputs;
}

}  // namespace linkscope::test
