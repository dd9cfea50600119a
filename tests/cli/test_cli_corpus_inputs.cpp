// Every corpus format and MedMentions' layout through linkscope-cli: --corpus with
// --split-pmids, --corpus-format, BioC (XML and JSON), brat and BigBio inputs, the UMLS filters, and the messages for
// lists that do not fit the corpus.
#include "cli_runner.h"
#include "gzip_fixture.h"
#include "test_data.h"

using namespace linkscope;

namespace {

// MedMentions-shaped: T-codes in the type column (ST21pv's own), UMLS CUIs as ids.
constexpr const char* kCorpus =
    "1001|t|Fever and cough in children.\n1001|a|Influenza causes fever.\n"
    "1001\t0\t5\tFever\tT033\tC0015967\n1001\t10\t15\tcough\tT033\tC0010200\n1001\t29\t38\tInfluenza\tT038\tC0021400\n"
    "\n"
    "1002|t|Aspirin for headache.\n1002|a|Aspirin reduces pain.\n"
    "1002\t0\t7\tAspirin\tT103\tC0004057\n1002\t12\t20\theadache\tT033\tC0018681\n\n"
    "1003|t|Cough remedies.\n1003|a|Honey soothes cough.\n1003\t0\t5\tCough\tT033\tC0010200\n\n"
    "1004|t|Headache study.\n1004|a|Patients with headache.\n1004\t0\t8\tHeadache\tT047\tC0018681\n";

std::string conso(const std::string& cui, const std::string& lat, const std::string& sab, const std::string& str) {
    return cui + "|" + lat + "|P|L1|PF|S1|Y|A1|||D1|" + sab + "|PT|D1|" + str + "|0|N||\n";
}

}  // namespace

class TestCliCorpusInputs : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString file(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    std::filesystem::path path(const char* name) const { return file(name).toStdString(); }
    QStringList splits() const {
        return {"--corpus",      file("corpus_pubtator.txt.gz"), "--split-pmids", "train=" + file("trng.txt"),
                "--split-pmids", "dev=" + file("dev.txt"),       "--split-pmids", "test=" + file("test.txt")};
    }
    static void expectFailure(const test::CliResult& r, const QByteArray& fragment) {
        QVERIFY2(r.exitCode != 0, "expected a non-zero exit status");
        QVERIFY2(r.out.isEmpty(), r.out.constData());
        QVERIFY2(r.err.contains(fragment), r.err.constData());
    }

private Q_SLOTS:
    void initTestCase() {
        test::writeGzip(path("corpus_pubtator.txt.gz"), kCorpus);
        test::writeFile(path("trng.txt"), "1001\n1002\n");
        test::writeFile(path("dev.txt"), "1003\n");
        test::writeFile(path("test.txt"), "1004\n");
        test::writeFile(path("MRCONSO.RRF"),
                        conso("C0015967", "ENG", "MSH", "Fever") + conso("C0015967", "ENG", "SNOMEDCT_US", "Pyrexia") +
                            conso("C0010200", "ENG", "MSH", "Cough") + conso("C0021400", "ENG", "MSH", "Influenza") +
                            conso("C0021400", "FRE", "MSHFRE", "Grippe") + conso("C0004057", "ENG", "MSH", "Aspirin") +
                            conso("C0018681", "ENG", "MSH", "Headache") +
                            conso("C0018681", "ENG", "LNC", "Cephalalgia"));
        test::writeFile(path("MRSTY.RRF"),
                        "C0015967|T184|A2.2.2|Sign or Symptom|AT1||\n"
                        "C0010200|T184|A2.2.2|Sign or Symptom|AT2||\n"
                        "C0021400|T047|B2.2.1.2.1|Disease or Syndrome|AT3||\n"
                        "C0004057|T109|A1.4.1.2.1|Organic Chemical|AT4||\n"
                        "C0018681|T184|A2.2.2|Sign or Symptom|AT5||\n"
                        "C9999999|T033|A2.2|Finding|AT6||\n"
                        "C9999998|T038|B2.2.1|Biologic Function|AT7||\n");
    }

    void statsPerSplitWithUmlsFilters() {
        auto args = QStringList{"stats"} + splits();
        args << "--kb" << file("MRCONSO.RRF") << "--mrsty" << file("MRSTY.RRF") << "--kb-semantic-types"
             << "st21pv"
             << "--kb-sources"
             << "st21pv"
             << "--json";
        const auto r = test::runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["corpora"].size(), std::size_t{3});
        QCOMPARE(j["corpora"][0]["name"].get<std::string>(), std::string("train"));
        QCOMPARE(j["corpora"][0]["documents"].get<int>(), 2);
        QCOMPARE(j["corpora"][2]["mentions"].get<int>(), 1);
        // T184 and T047 lie under T033 and T038; Aspirin (T109) under T103, which MRSTY never names.
        QCOMPARE(j["kb"]["entities"].get<int>(), 4);
        // Fever + Pyrexia (SNOMEDCT_US is one of the 18), Cough, Influenza (not Grippe: ENG), Headache (not LNC).
        QCOMPARE(j["kb"]["names"].get<int>(), 5);
    }
    void evalOnMedMentionsSplits() {
        auto args = QStringList{"eval"} + splits();
        args << "--kb" << file("MRCONSO.RRF") << "--types"
             << "st21pv"
             << "--split"
             << "dev"
             << "--method"
             << "sparse"
             << "--json";
        const auto r = test::runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto j = r.json();
        QCOMPARE(j["mentions"].get<int>(), 1);  // dev: 1003's "Cough" (T033 is one of the 21)
        QCOMPARE(j["acc@1"].get<double>(), 1.0);
        // The test mention is T047, not one of the 21 as ST21pv writes them: --types st21pv leaves it out.
        args = QStringList{"eval"} + splits();
        args << "--kb" << file("MRCONSO.RRF") << "--types"
             << "st21pv"
             << "--split"
             << "test"
             << "--method"
             << "sparse"
             << "--json";
        const auto test = test::runCli(args);
        QVERIFY2(test.exitCode == 0, test.err.constData());
        QCOMPARE(test.json()["mentions"].get<int>(), 0);
    }
    void bratAndBiocCorporaEverywhere() {
        // The manifest export writes the splits as BioC and brat; stats and eval read them back.
        test::writeFile(
            path("mm.json"),
            R"({"format":"linkscope-project-manifest","version":2,"knowledgeBase":{"path":"MRCONSO.RRF","format":"umls"},
                            "corpora":[{"path":"corpus_pubtator.txt.gz","pmidLists":[{"split":"train","path":"trng.txt"},
                              {"split":"dev","path":"dev.txt"},{"split":"test","path":"test.txt"}]}]})");
        auto r = test::runCli({"export", "--manifest", file("mm.json"), "--format", "bioc", "--out", file("bioc")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli({"export", "--manifest", file("mm.json"), "--format", "brat", "--out", file("brat")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("train: 2 documents, 5 mentions"), r.out.constData());

        r = test::runCli({"stats", "--corpus", file("bioc/train.bioc.xml"), file("brat/dev"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["corpora"][0]["mentions"].get<int>(), 5);
        QCOMPARE(r.json()["corpora"][1]["documents"].get<int>(), 1);

        r = test::runCli({"eval", "--train", file("brat/train"), "--dev", file("bioc/dev.bioc.xml"), "--test",
                          file("brat/test"), "--kb", file("MRCONSO.RRF"), "--split", "test", "--method", "sparse",
                          "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["mentions"].get<int>(), 1);

        // A named format is used as named.
        r = test::runCli({"stats", "--corpus", file("brat/train"), "--corpus-format", "pubtator"});
        QVERIFY(r.exitCode != 0);
    }
    void bioCJsonAndBigBioEverywhere() {
        // The manifest export writes the splits as BioC JSON and BigBio; stats and eval read them
        // back (detected), and a BigBio export of the BioC JSON export is the first BigBio export.
        test::writeFile(
            path("mm-json.json"),
            R"({"format":"linkscope-project-manifest","version":2,"knowledgeBase":{"path":"MRCONSO.RRF","format":"umls"},
                "corpora":[{"path":"corpus_pubtator.txt.gz","pmidLists":[{"split":"train","path":"trng.txt"},
                  {"split":"dev","path":"dev.txt"},{"split":"test","path":"test.txt"}]}]})");
        auto r = test::runCli({"export", "--manifest", file("mm-json.json"), "--format", "bioc-json", "--out",
                               file("bioc-json"), "--date", "20260101"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = test::runCli({"export", "--manifest", file("mm-json.json"), "--format", "bigbio", "--out", file("bigbio")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("train: 2 documents, 5 mentions"), r.out.constData());

        r = test::runCli(
            {"stats", "--corpus", file("bioc-json/train.bioc.json"), file("bigbio/dev.bigbio.jsonl"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["corpora"][0]["mentions"].get<int>(), 5);
        QCOMPARE(r.json()["corpora"][1]["documents"].get<int>(), 1);

        r = test::runCli({"eval", "--train", file("bigbio/train.bigbio.jsonl"), "--dev",
                          file("bioc-json/dev.bioc.json"), "--test", file("bigbio/test.bigbio.jsonl"), "--kb",
                          file("MRCONSO.RRF"), "--split", "test", "--method", "sparse", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["mentions"].get<int>(), 1);

        test::writeFile(path("from-json.json"),
                        R"({"format":"linkscope-project-manifest","version":2,"knowledgeBase":{"path":"MRCONSO.RRF",
                            "format":"umls"},"corpora":[{"split":"train","path":"bioc-json/train.bioc.json",
                            "format":"bioc-json"}]})");
        r = test::runCli({"export", "--manifest", file("from-json.json"), "--format", "bigbio", "--out",
                          file("again.bigbio.jsonl")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(test::readFile(path("again.bigbio.jsonl")), test::readFile(path("bigbio/train.bigbio.jsonl")));

        // A named format is used as named.
        r = test::runCli({"stats", "--corpus", file("bigbio/train.bigbio.jsonl"), "--corpus-format", "bioc-json"});
        QVERIFY(r.exitCode != 0);
    }
    void listsThatDoNotFitTheCorpus() {
        test::writeFile(path("absent.txt"), "1004\n\n9999\n");
        auto r = test::runCli(
            {"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--split-pmids", "test=" + file("absent.txt")});
        expectFailure(r, (file("absent.txt") + ":3: PMID 9999 of the test list is not in the corpus").toUtf8());

        test::writeFile(path("overlap.txt"), "1003\n1001\n");
        r = test::runCli({"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--split-pmids",
                          "train=" + file("trng.txt"), "--split-pmids", "dev=" + file("overlap.txt")});
        expectFailure(r, (file("overlap.txt") + ":2: PMID 1001 is also in the train list").toUtf8());

        // Documents in no list are said (on stderr for eval, in the diagnostics for stats).
        r = test::runCli({"eval", "--corpus", file("corpus_pubtator.txt.gz"), "--split-pmids",
                          "train=" + file("trng.txt"), "--split-pmids", "dev=" + file("dev.txt"), "--kb",
                          file("MRCONSO.RRF"), "--split", "dev", "--method", "sparse", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("1 of 4 documents are in no PMID list and in no split: 1004"), r.err.constData());
        r = test::runCli({"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--split-pmids",
                          "train=" + file("trng.txt"), "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.json()["diagnostics"].dump().find("2 of 4 documents are in no PMID list") != std::string::npos);
    }
    void argumentErrors() {
        const QString kb = file("MRCONSO.RRF");
        expectFailure(test::runCli({"eval", "--corpus", file("corpus_pubtator.txt.gz"), "--split-pmids",
                                    "training=" + file("trng.txt"), "--kb", kb, "--split", "dev"}),
                      "this command uses the splits train, dev, test");
        expectFailure(test::runCli({"eval", "--split-pmids", "train=" + file("trng.txt"), "--kb", kb}),
                      "--split-pmids needs --corpus");
        expectFailure(test::runCli({"eval", "--train", file("corpus_pubtator.txt.gz"), "--corpus",
                                    file("corpus_pubtator.txt.gz"), "--split-pmids", "train=" + file("trng.txt"),
                                    "--split-pmids", "dev=" + file("dev.txt"), "--kb", kb, "--split", "dev"}),
                      "the train split is given twice");
        expectFailure(test::runCli({"eval", "--dev", file("corpus_pubtator.txt.gz"), "--kb", kb, "--split", "dev"}),
                      "no training corpus");
        expectFailure(test::runCli({"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--split-pmids", "train"}),
                      "expected NAME=FILE");
        expectFailure(test::runCli({"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--kb", kb,
                                    "--kb-semantic-types", "T047"}),
                      "--kb-semantic-types needs --mrsty");
        expectFailure(test::runCli({"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--kb", kb, "--mrsty",
                                    file("MRSTY.RRF"), "--kb-semantic-types", "Disease"}),
                      "\"Disease\" is not a semantic type id");
        expectFailure(test::runCli({"stats", "--corpus", file("corpus_pubtator.txt.gz"), "--kb",
                                    test::demoFile("demo-kb.txt"), "--kb-sources", "MSH"}),
                      "filters are for UMLS");
    }
};

QTEST_GUILESS_MAIN(TestCliCorpusInputs)
#include "test_cli_corpus_inputs.moc"
