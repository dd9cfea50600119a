// Splits: PMID lists (MedMentions style), partitioning a corpus by them, and one file per split.
#include "corpus/corpus_split.h"
#include "corpus/pmid_list.h"
#include "corpus_fixtures.h"

using namespace linkscope;
using test::FixtureDir;

namespace {
// Documents 1..5, each "N|t|Title N.\nN|a|Abstract.\n".
std::string documents(std::initializer_list<int> pmids) {
    std::string out;
    for (const int pmid : pmids) {
        const auto id = std::to_string(pmid);
        if (!out.empty()) out += "\n";
        out += id + "|t|Title " + id + ".\n" + id + "|a|Abstract.\n";
    }
    return out;
}

std::vector<std::string> pmidsOf(const Corpus& corpus) {
    std::vector<std::string> out;
    for (const auto& doc : corpus.documents()) out.push_back(doc.pmid());
    return out;
}
}  // namespace

class TestCorpusSplits : public QObject {
    Q_OBJECT
    FixtureDir dir_;

private Q_SLOTS:
    void readsPmidLists() {
        const auto path = dir_.write("corpus_pubtator_pmids_trng.txt", "27773526\n 27583127 \r\n\n27634004");
        const PmidList list = readPmidList(path);
        QCOMPARE(list.name, std::string("corpus_pubtator_pmids_trng"));
        QCOMPARE(list.sourceFile, path.string());
        QCOMPARE(list.pmids, (std::vector<std::string>{"27773526", "27583127", "27634004"}));
        QCOMPARE(list.lines, (std::vector<std::size_t>{1, 2, 4}));
        QCOMPARE(readPmidList(path, "trng").name, std::string("trng"));
    }
    void malformedPmidLists_data() {
        QTest::addColumn<QByteArray>("content");  // written to <row name>.txt
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("letters") << QByteArray("123\n45a6\n") << 2 << "not a PMID: \"45a6\"";
        QTest::newRow("two") << QByteArray("123\n456 789\n") << 2 << "not a PMID";
        QTest::newRow("pubtator") << QByteArray("123|t|A title\n") << 1 << "one numeric PMID per line";
        QTest::newRow("repeated") << QByteArray("123\n456\n123\n") << 3 << "PMID 123 listed twice (first at line 1)";
        QTest::newRow("empty") << QByteArray("") << 0 << "no PMIDs";
        QTest::newRow("blank") << QByteArray("\n  \n") << 0 << "no PMIDs";
        QTest::newRow("binary") << QByteArray(
                                       "123\n4\xff"
                                       "5\n")
                                << 2 << "UTF-8";
        QTest::newRow("huge") << QByteArray::fromStdString("123\n" + std::string(100000, '7') + "\n") << 2
                              << "line longer than";
    }
    void malformedPmidLists() {
        QFETCH(QByteArray, content);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        const auto path = dir_.write(std::string(QTest::currentDataTag()) + ".txt",
                                     std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        LINKSCOPE_EXPECT_PARSE_ERROR(readPmidList(path), path, static_cast<std::size_t>(line), fragment.toStdString());
    }

    void partitionsByLists() {
        const Corpus corpus = readPubTator(dir_.write("all.txt", documents({1, 2, 3, 4, 5, 6})));
        const std::vector<PmidList> lists{
            readPmidList(dir_.write("trng.txt", "1\n2\n9\n"), "trng"),
            readPmidList(dir_.write("dev.txt", "3\n2\n"), "dev"),
            readPmidList(dir_.write("test.txt", "5\n4\n"), "test"),
        };
        const CorpusPartition partition = partitionByPmidLists(corpus, lists);
        QCOMPARE(partition.splits.size(), std::size_t{3});
        QCOMPARE(partition.splits[0].name, std::string("trng"));
        // the first list that names a document owns it; documents keep corpus order
        QCOMPARE(pmidsOf(partition.splits[0].corpus), (std::vector<std::string>{"1", "2"}));
        QCOMPARE(pmidsOf(*partition.find("dev")), (std::vector<std::string>{"3"}));
        QCOMPARE(pmidsOf(*partition.find("test")), (std::vector<std::string>{"4", "5"}));
        QVERIFY(partition.find("nope") == nullptr);
        QCOMPARE(partition.splits[2].corpus.name, std::string("test"));
        QVERIFY(sameContent(*partition.splits[2].corpus.find("4"), *corpus.find("4")));

        QCOMPARE(partition.absent.size(), std::size_t{1});
        QCOMPARE(partition.absent[0].list, std::string("trng"));
        QCOMPARE(partition.absent[0].pmid, std::string("9"));
        QCOMPARE(partition.absent[0].line, std::size_t{3});
        QVERIFY(partition.absent[0].file.ends_with("trng.txt"));

        QCOMPARE(partition.unlisted, (std::vector<std::string>{"6"}));
        QCOMPARE(partition.overlaps.size(), std::size_t{1});
        QCOMPARE(partition.overlaps[0].pmid, std::string("2"));
        QCOMPARE(partition.overlaps[0].splits, (std::vector<std::string>{"trng", "dev"}));
    }

    void cleanPartitionReportsNothing() {
        const Corpus corpus = readPubTator(dir_.write("clean.txt", documents({10, 11, 12})));
        const std::vector<PmidList> lists{readPmidList(dir_.write("a.txt", "12\n10\n"), "a"),
                                          readPmidList(dir_.write("b.txt", "11\n"), "b")};
        const auto partition = partitionByPmidLists(corpus, lists);
        QVERIFY(partition.absent.empty());
        QVERIFY(partition.unlisted.empty());
        QVERIFY(partition.overlaps.empty());
        QCOMPARE(pmidsOf(partition.splits[0].corpus), (std::vector<std::string>{"10", "12"}));
    }

    void splitFilesReportLeaks() {
        const std::vector<SplitFile> files{
            {"train", dir_.write("train.txt", documents({1, 2, 3}))},
            {"dev", dir_.write("dev_split.txt", documents({4}))},
            {"test", dir_.write("test_split.txt", documents({5, 2}))},
        };
        const SplitCorpora splits = readSplitFiles(files);
        QCOMPARE(splits.splits.size(), std::size_t{3});
        QCOMPARE(splits.find("train")->size(), std::size_t{3});
        QCOMPARE(splits.find("train")->name, std::string("train"));
        QCOMPARE(pmidsOf(*splits.find("test")), (std::vector<std::string>{"5", "2"}));
        QVERIFY(splits.find("other") == nullptr);
        QCOMPARE(splits.overlaps.size(), std::size_t{1});
        QCOMPARE(splits.overlaps[0].pmid, std::string("2"));
        QCOMPARE(splits.overlaps[0].splits, (std::vector<std::string>{"train", "test"}));
    }

    void splitFileErrorsNameTheFile() {
        const std::vector<SplitFile> files{{"train", dir_.write("ok.txt", documents({1}))},
                                           {"dev", dir_.write("broken_dev.txt", "1|t|A\n1\tx\n")}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitFiles(files), "broken_dev.txt", 2, "too few columns");
    }
};

QTEST_APPLESS_MAIN(TestCorpusSplits)
#include "test_corpus_splits.moc"
