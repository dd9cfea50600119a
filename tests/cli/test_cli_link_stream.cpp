// linkscope-cli link streams its corpus: linked a chunk of documents at a time (here one document
// per chunk), the output is the one of the whole corpus linked at once, byte for byte; what is not
// a link is kept as the input holds it.
#include <QStringList>

#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

    // BioC JSON and BigBio with --keep-gold: every document as the input holds it, the prediction
    // beside the gold (BioC JSON's linkscope_* infons, BigBio's linkscope_candidates), read a
    // document per chunk as the whole file.
    void jsonFormatsKeepTheGoldAndAddThePrediction() {
        test::FixtureDir dir;
        for (const char* format : {"bioc-json", "bigbio"}) {
            const bool bigbio = std::string(format) == "bigbio";
            const fs::path input = dir.path(bigbio ? "train.bigbio.jsonl" : "train.bioc.json");
            auto r = test::runCli({"export", "--manifest", test::demoFile("demo-project.json"), "--format", format,
                                   "--split", "train", "--date", "20260101", "--out", q(input)});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const fs::path out = dir.path(std::string("gold-") + format);
            r = test::runCli(linkArguments(input, out, {"--keep-gold", "--chunk-bytes", "1"}));
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY2(r.out.contains(" linked"), r.out.constData());

            std::vector<nlohmann::json> documents[2];
            for (int side = 0; side < 2; ++side) {
                const std::string text = test::readFile(side == 0 ? input : out);
                if (bigbio) {
                    std::size_t start = 0;
                    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
                        documents[side].push_back(nlohmann::json::parse(text.substr(start, end - start)));
                } else {
                    const nlohmann::json collection = nlohmann::json::parse(text);
                    for (const auto& document : collection.at("documents")) documents[side].push_back(document);
                }
            }
            QCOMPARE(documents[1].size(), documents[0].size());
            QVERIFY(!documents[0].empty());
            std::size_t predictions = 0;
            for (auto& document : documents[1]) {
                if (bigbio) {
                    for (auto& entity : document.at("entities")) predictions += entity.erase("linkscope_candidates");
                    continue;
                }
                for (auto& passage : document.at("passages"))
                    for (auto& annotation : passage.at("annotations")) {
                        auto& infons = annotation.at("infons");
                        predictions += infons.erase("linkscope_identifier");
                        for (auto it = infons.begin(); it != infons.end();)
                            it = it.key().starts_with("linkscope_") ? infons.erase(it) : std::next(it);
                    }
            }
            QVERIFY2(predictions >= 30, format);
            QVERIFY2(documents[1] == documents[0], format);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliLinkStream)
#include "test_cli_link_stream.moc"
