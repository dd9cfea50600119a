// linkscope-cli link streams its corpus: linked a chunk of documents at a time (here one document
// per chunk), the output is the one of the whole corpus linked at once, byte for byte.
#include <QStringList>

#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "fixtures.h"
#include "link_shard_runner.h"

using namespace linkscope;
using test::demoCorpus;
using test::linkArguments;
using test::q;
namespace fs = std::filesystem;

class TestCliLinkStream : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // One document per chunk gives the output of the corpus linked at once.
    void chunksGiveTheWholeCorpusOutput() {
        test::FixtureDir dir;
        const fs::path corpus = dir.write("corpus.txt", demoCorpus());
        auto r = test::runCli(linkArguments(corpus, dir.path("whole.txt")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(corpus, dir.path("chunked.txt"), {"--chunk-bytes", "1"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const std::string whole = test::readFile(dir.path("whole.txt"));
        QVERIFY(whole.size() > 1000);
        QVERIFY(whole.rfind("\n\n", 0) == 0);  // the leading blank lines are kept
        QCOMPARE(test::readFile(dir.path("chunked.txt")), whole);

        // brat: a file pair per document, read a chunk of pairs at a time.
        r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", "brat", "--split",
                          "train", "--out", q(dir.path("brat"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(dir.path("brat"), dir.path("brat-whole")));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli(linkArguments(dir.path("brat"), dir.path("brat-chunked"), {"--chunk-bytes", "1"}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        int files = 0;
        for (const auto& entry : fs::directory_iterator(dir.path("brat-whole"))) {
            QCOMPARE(test::readFile(dir.path("brat-chunked") / entry.path().filename()), test::readFile(entry.path()));
            ++files;
        }
        QVERIFY(files >= 12);
    }
};

QTEST_GUILESS_MAIN(TestCliLinkStream)
#include "test_cli_link_stream.moc"
