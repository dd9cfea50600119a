// The real corpora under ../shared/data, read in place in STRICT mode: document, mention and
// relation counts (SOURCE.md figures; the composite/CUI-less figures were counted independently
// with a script over the raw files), MedMentions split lists, and write-back round trips.
#include <algorithm>

#include "corpus/corpus_split.h"
#include "corpus/corpus_stats.h"
#include "corpus/pmid_list.h"
#include "corpus/pubtator_reader.h"
#include "corpus/pubtator_writer.h"
#include "corpus_fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;

namespace {

struct Expected {
    std::size_t documents;
    std::size_t mentions;
    std::size_t alternative;
    std::size_t conjunction;
    std::size_t cuiLess;
    std::size_t individual;
    std::size_t relations;
    std::size_t distinctIds;
};

void checkCounts(const Corpus& corpus, const Expected& e) {
    const CorpusStats stats = computeCorpusStats(corpus);
    QCOMPARE(stats.documents, e.documents);
    QCOMPARE(stats.mentions, e.mentions);
    QCOMPARE(stats.alternativeMentions, e.alternative);
    QCOMPARE(stats.conjunctionMentions, e.conjunction);
    QCOMPARE(stats.cuiLessMentions, e.cuiLess);
    QCOMPARE(stats.mentionsWithIndividualMentions, e.individual);
    QCOMPARE(stats.relations, e.relations);
    QCOMPARE(stats.distinctIds, e.distinctIds);
    QCOMPARE(stats.mentionsWithInvalidOffsets, std::size_t{0});  // strict mode: all validated
}

// Lines [first, last] (1-based) removed from `text`.
std::string withoutLines(const std::string& text, std::size_t first, std::size_t last) {
    std::string out;
    std::size_t line = 1;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        const auto next = end == std::string::npos ? text.size() : end + 1;
        if (line < first || line > last) out.append(text, start, next - start);
        start = next;
        ++line;
    }
    return out;
}

}  // namespace

class TestCorpusData : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    // Reads, writes back, compares bytes with `expectedBytes` and documents with the original.
    void roundTrip(const std::filesystem::path& path, const std::string& expectedBytes) {
        const Corpus corpus = readPubTator(path);
        const auto out = dir_.path(path.filename().string() + ".out");
        writePubTator(corpus, out);
        const std::string written = test::readFile(out);
        QCOMPARE(written.size(), expectedBytes.size());
        QVERIFY(written == expectedBytes);
        const Corpus again = readPubTator(out);
        QCOMPARE(again.size(), corpus.size());
        for (std::size_t i = 0; i < corpus.size(); ++i)
            QVERIFY2(sameContent(again.documents()[i], corpus.documents()[i]), corpus.documents()[i].pmid().c_str());
    }

private Q_SLOTS:
    void ncbiTrain() {
        LINKSCOPE_REQUIRE_DATA(path, "ncbi-disease/NCBItrainset_corpus.txt");
        const Corpus corpus = readPubTator(path);
        // 593 |t| blocks, PMID 8528200 twice (lines 3811 and 4557, identical copies of 11 mentions):
        // 592 documents and 5,145 - 11 = 5,134 mentions.
        checkCounts(corpus, {592, 5134, 93, 22, 0, 0, 0, 647});
        QCOMPARE(corpus.duplicates.size(), std::size_t{1});
        const auto& dup = corpus.duplicates[0];
        QCOMPARE(dup.pmid, std::string("8528200"));
        QCOMPARE(dup.keptLine, std::size_t{3811});
        QCOMPARE(dup.droppedLine, std::size_t{4557});
        QVERIFY(dup.identical);
        QCOMPARE(corpus.find("8528200")->mentions.size(), std::size_t{11});
        const auto stats = computeCorpusStats(corpus);
        QCOMPARE(stats.mentionsByType.at("SpecificDisease"), std::size_t{2962});
        QCOMPARE(stats.mentionsByType.at("DiseaseClass"), std::size_t{769});
        QCOMPARE(stats.mentionsByType.at("Modifier"), std::size_t{1288});
        QCOMPARE(stats.mentionsByType.at("CompositeMention"), std::size_t{115});
        // Two diagnostics: the duplicate, and the one mention whose text column carries two
        // spaces the document lacks (line 3249, PMID 10923035, offsets 711-761).
        QCOMPARE(corpus.diagnostics.size(), std::size_t{2});
        const Mention* padded = nullptr;
        for (const auto& m : corpus.find("10923035")->mentions)
            if (m.paddedText) padded = &m;
        QVERIFY(padded);
        QCOMPARE(padded->sourceLine, std::size_t{3249});
        QCOMPARE(padded->text, std::string("generalized epilepsy and febrile seizures \" plus \""));
        // stray spaces in id columns (lines 2852 and 3300) are kept as written and canonicalised
        const Mention& pax6 = corpus.find("7550230")->mentions.back();
        QCOMPARE(pax6.sourceLine, std::size_t{2852});
        QCOMPARE(pax6.idColumn, std::string("OMIM:106210 "));
        QCOMPARE(pax6.ids.ids, (std::vector<std::string>{"OMIM:106210"}));
        for (const auto& m : corpus.find("10842298")->mentions)
            if (m.sourceLine == 3300) QCOMPARE(m.ids.ids, (std::vector<std::string>{"MESH:D015862", "MESH:D058499"}));
    }
    void ncbiDev() {
        LINKSCOPE_REQUIRE_DATA(path, "ncbi-disease/NCBIdevelopset_corpus.txt");
        const Corpus corpus = readPubTator(path);
        checkCounts(corpus, {100, 787, 20, 10, 0, 0, 0, 170});
        QVERIFY(corpus.diagnostics.empty());
    }
    void ncbiTest() {
        LINKSCOPE_REQUIRE_DATA(path, "ncbi-disease/NCBItestset_corpus.txt");
        const Corpus corpus = readPubTator(path);
        checkCounts(corpus, {100, 960, 15, 0, 0, 0, 0, 200});
        QVERIFY(corpus.diagnostics.empty());
        const auto& mentions = corpus.find("9703418")->mentions;
        const auto stray =
            std::find_if(mentions.begin(), mentions.end(), [](const Mention& m) { return m.sourceLine == 837; });
        QVERIFY(stray != mentions.end());
        QCOMPARE(stray->idColumn, std::string(" D007153"));
        QCOMPARE(stray->ids.ids, (std::vector<std::string>{"MESH:D007153"}));
    }
    void ncbiSplitsAreDisjoint() {
        LINKSCOPE_REQUIRE_DATA(train, "ncbi-disease/NCBItrainset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(dev, "ncbi-disease/NCBIdevelopset_corpus.txt");
        LINKSCOPE_REQUIRE_DATA(testFile, "ncbi-disease/NCBItestset_corpus.txt");
        const std::vector<SplitFile> files{{"train", train}, {"dev", dev}, {"test", testFile}};
        const SplitCorpora splits = readSplitFiles(files);
        QCOMPARE(splits.find("train")->size(), std::size_t{592});
        QCOMPARE(splits.find("dev")->size(), std::size_t{100});
        QCOMPARE(splits.find("test")->size(), std::size_t{100});
        QVERIFY(splits.overlaps.empty());
    }

    void bc5cdrTraining() {
        LINKSCOPE_REQUIRE_DATA(path, "bc5cdr/CDR_TrainingSet.PubTator.txt");
        const Corpus corpus = readPubTator(path);
        checkCounts(corpus, {500, 9385, 98, 0, 76, 89, 1038, 1328});
        const auto stats = computeCorpusStats(corpus);
        QCOMPARE(stats.mentionsByType.at("Chemical"), std::size_t{5203});
        QCOMPARE(stats.mentionsByType.at("Disease"), std::size_t{4182});
        QCOMPARE(stats.relationsByType.at("CID"), std::size_t{1038});
        QCOMPARE(stats.relationsByType.size(), std::size_t{1});
        QCOMPARE(stats.mentionsWithCuiLessPart, std::size_t{0});
        QVERIFY(corpus.diagnostics.empty());
        QVERIFY(corpus.duplicates.empty());
        const Document* first = corpus.find("227508");
        QVERIFY(first);
        QCOMPARE(first->relations[0].arguments, (std::vector<std::string>{"MESH:D008750", "MESH:D007022"}));
    }
    void bc5cdrDevelopment() {
        LINKSCOPE_REQUIRE_DATA(path, "bc5cdr/CDR_DevelopmentSet.PubTator.txt");
        const Corpus corpus = readPubTator(path);
        checkCounts(corpus, {500, 9591, 100, 0, 59, 89, 1012, 1263});
        const auto stats = computeCorpusStats(corpus);
        QCOMPARE(stats.mentionsByType.at("Chemical"), std::size_t{5347});
        QCOMPARE(stats.mentionsByType.at("Disease"), std::size_t{4244});
        QCOMPARE(stats.relationsByType.at("CID"), std::size_t{1012});
        QCOMPARE(stats.mentionsWithCuiLessPart, std::size_t{1});  // "D002544|-1"
        QVERIFY(corpus.diagnostics.empty());
        QCOMPARE(corpus.layout.trailingBlankLines, std::size_t{1});
    }
    void bc5cdrSample() {
        LINKSCOPE_REQUIRE_DATA(path, "bc5cdr-sample/CDR_sample.txt");
        const Corpus corpus = readPubTator(path);
        checkCounts(corpus, {50, 925, 5, 0, 2, 5, 124, 277});
        QVERIFY(corpus.diagnostics.empty());
    }

    void medMentionsSplitLists() {
        LINKSCOPE_REQUIRE_DATA(dir, "medmentions-splits");
        const auto trng = readPmidList(dir / "corpus_pubtator_pmids_trng.txt", "trng");
        const auto dev = readPmidList(dir / "corpus_pubtator_pmids_dev.txt", "dev");
        const auto testList = readPmidList(dir / "corpus_pubtator_pmids_test.txt", "test");
        const auto all = readPmidList(dir / "corpus_pubtator_pmids_all.txt", "all");
        QCOMPARE(trng.pmids.size(), std::size_t{2635});
        QCOMPARE(dev.pmids.size(), std::size_t{878});
        QCOMPARE(testList.pmids.size(), std::size_t{879});
        QCOMPARE(all.pmids.size(), std::size_t{4392});
        // trng + dev + test == all: partition a corpus holding exactly the "all" PMIDs.
        Corpus corpus("medmentions-pmids");
        for (const auto& pmid : all.pmids) corpus.add(Document(pmid));
        const std::vector<PmidList> lists{trng, dev, testList};
        const auto partition = partitionByPmidLists(corpus, lists);
        QVERIFY(partition.absent.empty());
        QVERIFY(partition.unlisted.empty());
        QVERIFY(partition.overlaps.empty());
        QCOMPARE(partition.find("trng")->size(), std::size_t{2635});
        QCOMPARE(partition.find("dev")->size(), std::size_t{878});
        QCOMPARE(partition.find("test")->size(), std::size_t{879});
    }

    void roundTripsAreByteIdentical_data() {
        QTest::addColumn<QString>("relative");
        QTest::newRow("ncbi dev") << "ncbi-disease/NCBIdevelopset_corpus.txt";
        QTest::newRow("ncbi test") << "ncbi-disease/NCBItestset_corpus.txt";
        QTest::newRow("bc5cdr training") << "bc5cdr/CDR_TrainingSet.PubTator.txt";
        QTest::newRow("bc5cdr development") << "bc5cdr/CDR_DevelopmentSet.PubTator.txt";
        QTest::newRow("bc5cdr sample") << "bc5cdr-sample/CDR_sample.txt";
    }
    void roundTripsAreByteIdentical() {
        QFETCH(QString, relative);
        const std::string rel = relative.toStdString();
        LINKSCOPE_REQUIRE_DATA(path, rel.c_str());
        roundTrip(path, test::readFile(path));
    }
    void ncbiTrainRoundTripDropsOnlyTheDuplicate() {
        LINKSCOPE_REQUIRE_DATA(path, "ncbi-disease/NCBItrainset_corpus.txt");
        // The only difference: the second copy of PMID 8528200 (lines 4557-4569) and the blank
        // line before it (4556) are not written, because the corpus keeps one copy.
        roundTrip(path, withoutLines(test::readFile(path), 4556, 4569));
    }

    void gzipCopyReadsTheSame() {
        LINKSCOPE_REQUIRE_DATA(path, "bc5cdr-sample/CDR_sample.txt");
        const auto packed = dir_.path("CDR_sample.txt.gz");  // a temporary copy, never in the repo
        test::writeGzip(packed, test::readFile(path));
        const Corpus plain = readPubTator(path);
        const Corpus unpacked = readPubTator(packed);
        QCOMPARE(unpacked.size(), plain.size());
        for (std::size_t i = 0; i < plain.size(); ++i)
            QVERIFY(sameContent(unpacked.documents()[i], plain.documents()[i]));
    }
};

QTEST_APPLESS_MAIN(TestCorpusData)
#include "test_corpus_data.moc"
