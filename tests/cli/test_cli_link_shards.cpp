// linkscope-cli link splits its corpus into shards: N parts run two at a time and joined by
// merge-shards give the one run's output, byte for byte (test_cli_link_stream: chunks;
// test_cli_link_shard_checks: what merge-shards refuses, and reruns).
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "fixtures.h"
#include "gzip_fixture.h"
#include "link_shard_runner.h"

using namespace linkscope;
using test::demoCorpus;
using test::linkArguments;
using test::q;
using test::runShards;
namespace fs = std::filesystem;

class TestCliLinkShards : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // PubTator, plain and gzip: 4 shards run two at a time, merged, equal one run.
    void pubTatorShardsMergeToOneRun() {
        test::FixtureDir dir;
        const std::string text = demoCorpus();
        const fs::path corpus = dir.write("corpus.txt", text);
        auto r = test::runCli(linkArguments(corpus, dir.path("one.txt")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const std::string one = test::readFile(dir.path("one.txt"));

        const QStringList outputs = runShards(corpus, dir.path("shards"), 4);
        QVERIFY2(outputs.size() == 4, qPrintable(outputs.join("\n")));
        r = test::runCli({"merge-shards", q(dir.path("shards")), "--out", q(dir.path("merged.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("4 shards, 8 documents"), r.out.constData());
        QCOMPARE(test::readFile(dir.path("merged.txt")), one);
        // Every shard of this corpus holds documents: the cut is by bytes.
        for (int i = 0; i < 4; ++i) QVERIFY2(!outputs[i].startsWith("0 mentions"), qPrintable(outputs[i]));

        const fs::path gz = dir.path("corpus.txt.gz");
        test::writeGzip(gz, text);
        QVERIFY(runShards(gz, dir.path("gz-shards"), 3).size() == 3);
        r = test::runCli({"merge-shards", q(dir.path("gz-shards")), "--out", q(dir.path("gz-merged.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("gz-merged.txt")), one);
    }

    // A document that two shards both hold is written once, as one run writes it.
    void repeatedDocumentAcrossShardsIsWrittenOnce() {
        test::FixtureDir dir;
        const std::string testSplit = test::readFile(test::demoFile("demo-test.txt").toStdString());
        const fs::path corpus =
            dir.write("corpus.txt", testSplit + "\n" + test::readFile(test::demoFile("demo-train.txt").toStdString()) +
                                        "\n" + testSplit);
        auto r = test::runCli(linkArguments(corpus, dir.path("one.txt")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(runShards(corpus, dir.path("shards"), 4).size() == 4);
        r = test::runCli({"merge-shards", q(dir.path("shards")), "--out", q(dir.path("merged.txt"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("written once"), r.err.constData());
        QCOMPARE(test::readFile(dir.path("merged.txt")), test::readFile(dir.path("one.txt")));
    }

    // BioC XML: the collection's header and footer once, the documents of every shard between.
    void bioCShardsMergeToOneRun() {
        test::FixtureDir dir;
        const fs::path bioc = dir.path("train.bioc.xml");
        auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "bioc",
                               "--split", "train", "--date", "20260101", "--out", q(bioc)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(bioc, dir.path("one.xml"), {"--top", "3"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const std::string one = test::readFile(dir.path("one.xml"));
        r = test::runCli(linkArguments(bioc, dir.path("chunked.xml"), {"--top", "3", "--chunk-bytes", "1"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("chunked.xml")), one);

        QVERIFY(runShards(bioc, dir.path("shards"), 4, {"--top", "3"}).size() == 4);
        r = test::runCli({"merge-shards", q(dir.path("shards")), "--out", q(dir.path("merged.xml"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("merged.xml")), one);
    }

    // BioC JSON (plain and gzip) and BigBio JSON lines: chunks and 4 shards merged equal one run.
    void jsonFormatShardsMergeToOneRun_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("gzip");
        QTest::newRow("bioc-json") << "bioc-json"
                                   << "train.bioc.json" << false;
        QTest::newRow("bioc-json.gz") << "bioc-json"
                                      << "train.bioc.json" << true;
        QTest::newRow("bigbio") << "bigbio"
                                << "train.bigbio.jsonl" << false;
        QTest::newRow("bigbio.gz") << "bigbio"
                                   << "train.bigbio.jsonl" << true;
    }
    void jsonFormatShardsMergeToOneRun() {
        QFETCH(QString, format);
        QFETCH(QString, file);
        QFETCH(bool, gzip);
        test::FixtureDir dir;
        fs::path input = dir.path(file.toStdString());
        auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", format,
                               "--split", "train", "--date", "20260101", "--out", q(input)});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        if (gzip) {
            const fs::path gz = dir.path(file.toStdString() + ".gz");
            test::writeGzip(gz, test::readFile(input));
            input = gz;
        }
        r = test::runCli(linkArguments(input, dir.path("one"), {"--top", "3"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const std::string one = test::readFile(dir.path("one"));
        QVERIFY(one.find("linkscope_") != std::string::npos);
        r = test::runCli(linkArguments(input, dir.path("chunked"), {"--top", "3", "--chunk-bytes", "1"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("chunked")), one);

        const QStringList outputs = runShards(input, dir.path("shards"), 4, {"--top", "3"});
        QVERIFY2(outputs.size() == 4, qPrintable(outputs.join("\n")));
        if (!gzip)  // a plain file is cut by bytes: every shard holds documents
            for (int i = 0; i < 4; ++i) QVERIFY2(!outputs[i].startsWith("0 mentions"), qPrintable(outputs[i]));
        r = test::runCli({"merge-shards", q(dir.path("shards")), "--out", q(dir.path("merged"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(dir.path("merged")), one);
    }
};

QTEST_GUILESS_MAIN(TestCliLinkShards)
#include "test_cli_link_shards.moc"
