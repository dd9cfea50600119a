// merge-shards refuses a shard that is missing, cut short or linked otherwise, naming it; a rerun
// links only the shards whose manifest is missing or whose part is damaged; --shard slurm.
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <filesystem>

#include "cli_runner.h"
#include "fixtures.h"
#include "link_shard_runner.h"

using namespace linkscope;
using test::demoCorpus;
using test::linkArguments;
using test::q;
using test::runShards;
namespace fs = std::filesystem;

class TestCliLinkShardChecks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A shard killed while writing leaves a temporary file and no manifest; a part cut short
    // no longer has its manifest's size: merge-shards refuses both, naming the shard.
    void mergeRefusesMissingOrCutShards() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 4).size() == 4);
        const fs::path merged = dir.path("merged.txt");

        fs::remove(shards / "shard-00002-of-00004.json");
        dir.write("shards/shard-00002-of-00004.json.tmp-99999-1", "{\"format\": \"linkscope-link-sh");
        auto r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard 2 of 4") && r.err.contains("no manifest"), r.err.constData());
        QVERIFY(!fs::exists(merged));

        // The rerun links only shard 2.
        const QStringList outputs = runShards(corpus, shards, 4);
        QVERIFY2(outputs.size() == 4, qPrintable(outputs.join("\n")));
        for (int i = 0; i < 4; ++i) QVERIFY2(outputs[i].contains("already linked") == (i != 2), qPrintable(outputs[i]));
        r = test::runCli({"merge-shards", q(shards), "--out", q(merged)});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        const fs::path part = shards / "shard-00001-of-00004.pubtator";
        fs::resize_file(part, fs::file_size(part) / 2);
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("again.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard 1 of 4") && r.err.contains("cut short"), r.err.constData());
        // A rerun sees the damaged part and links shard 1 again.
        const QStringList again = runShards(corpus, shards, 4);
        QVERIFY2(again.size() == 4 && !again[1].contains("already linked"), qPrintable(again.join("\n")));

        // A part changed in place (same size, other bytes): the rerun checks its CRC-32, not its
        // size and time, and links shard 3 again.
        std::string bytes = test::readFile(shards / "shard-00003-of-00004.pubtator");
        bytes[bytes.size() / 2] = bytes[bytes.size() / 2] == 'x' ? 'y' : 'x';
        dir.write("shards/shard-00003-of-00004.pubtator", bytes);
        const QStringList third = runShards(corpus, shards, 4);
        QVERIFY2(third.size() == 4, qPrintable(third.join("\n")));
        for (int i = 0; i < 4; ++i) QVERIFY2(third[i].contains("already linked") == (i != 3), qPrintable(third[i]));
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("third.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("third.txt")), test::readFile(merged));
    }

    // `index --kb` alone writes the dictionary link searches: every shard loads the one index.
    void shardsLoadOnePrebuiltIndex() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path index = dir.path("kb.sparse");
        auto r = test::runCli({"index", "--kb", test::demoFile("demo-kb.txt"), "--sparse-index", q(index)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(corpus, dir.path("built.txt")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(corpus, dir.path("loaded.txt"), {"--index", q(index)}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("Loading sparse index") && !r.err.contains("Building sparse index"), r.err.constData());
        QCOMPARE(test::readFile(dir.path("loaded.txt")), test::readFile(dir.path("built.txt")));
        const auto indexTime = fs::last_write_time(index);
        QVERIFY(runShards(corpus, dir.path("shards"), 2, {"--index", q(index)}).size() == 2);
        QVERIFY(fs::last_write_time(index) == indexTime);  // read, never written again
        r = test::runCli({"merge-shards", q(dir.path("shards")), "--out", q(dir.path("merged.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("merged.txt")), test::readFile(dir.path("built.txt")));
    }

    // A shard linked with other settings (or read from another corpus) is refused by name.
    void mergeRefusesMismatchedShards() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        const fs::path shards = dir.path("shards");
        QVERIFY(runShards(corpus, shards, 4).size() == 4);
        auto r = test::runCli(linkArguments(corpus, shards, {"--shard", "3/4", "--nil-below", "0.5"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(!r.out.contains("already linked"), r.out.constData());
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("merged.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("shard 3 of 4") && r.err.contains("other settings"), r.err.constData());

        // A shard of another N in the folder: two runs mixed.
        r = test::runCli(linkArguments(corpus, shards, {"--shard", "0/2"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli({"merge-shards", q(shards), "--out", q(dir.path("merged.txt"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("different N"), r.err.constData());
    }

    // --shard slurm reads the job array's variables; a bad --shard is refused before any work.
    void slurmShardAndBadShards() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("SLURM_ARRAY_TASK_ID", "11");
        environment.insert("SLURM_ARRAY_TASK_MIN", "10");
        environment.insert("SLURM_ARRAY_TASK_MAX", "12");
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(LINKSCOPE_CLI_PATH),
                      linkArguments(corpus, dir.path("shards"), {"--shard", "slurm"}));
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY(fs::exists(dir.path("shards") / "shard-00001-of-00003.json"));

        for (const char* bad : {"4/4", "1/0", "x/2", "2"}) {
            const auto r = test::runCli(linkArguments(corpus, dir.path("bad"), {"--shard", bad}));
            QVERIFY(r.exitCode != 0);
            QVERIFY2(r.err.contains("--shard"), r.err.constData());
        }
        QVERIFY(!fs::exists(dir.path("bad")));
    }
};

QTEST_GUILESS_MAIN(TestCliLinkShardChecks)
#include "test_cli_link_shard_checks.moc"
