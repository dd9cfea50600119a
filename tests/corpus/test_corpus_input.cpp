// Opening any corpus: the format told from the input, several inputs as one corpus,
// and MedMentions' layout (one corpus, one PMID list per split) with every gap or overlap named.
#include <algorithm>

#include "corpus/bioc_writer.h"
#include "corpus/brat_writer.h"
#include "corpus/corpus_input.h"
#include "corpus/pubtator_reader.h"
#include "corpus_fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;
using test::FixtureDir;

namespace {

// Documents with one linked mention each: "N|t|Fever N.\nN|a|Cough.\n" + the mention "Fever".
std::string documents(std::initializer_list<int> pmids) {
    std::string out;
    for (const int pmid : pmids) {
        const auto id = std::to_string(pmid);
        if (!out.empty()) out += "\n";
        out += id + "|t|Fever " + id + ".\n" + id + "|a|Cough.\n" + id + "\t0\t5\tFever\tT184\tC0015967\n";
    }
    return out;
}

std::vector<std::string> pmidsOf(const Corpus& corpus) {
    std::vector<std::string> out;
    for (const auto& doc : corpus.documents()) out.push_back(doc.pmid());
    return out;
}

bool hasNote(const std::vector<Diagnostic>& notes, const std::string& fragment) {
    return std::any_of(notes.begin(), notes.end(),
                       [&](const Diagnostic& d) { return d.message.find(fragment) != std::string::npos; });
}

}  // namespace

class TestCorpusInput : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    // The same three documents as PubTator, BioC XML (plain and .gz) and a brat folder.
    void writeAllFormats() {
        const Corpus corpus = readPubTator(dir_.write("c.txt", documents({1, 2, 3})));
        writeBioC(corpus, dir_.path("c.bioc.xml"));
        std::string xml;
        {
            std::ifstream in(dir_.path("c.bioc.xml"));
            xml.assign(std::istreambuf_iterator<char>(in), {});
        }
        test::writeGzip(dir_.path("c.xml.gz"), xml);
        writeBrat(corpus, dir_.path("brat"));
    }

private Q_SLOTS:
    void detectsTheFormat() {
        writeAllFormats();
        QCOMPARE(detectCorpusFormat(dir_.path("c.txt")), CorpusFormat::PubTator);
        QCOMPARE(detectCorpusFormat(dir_.path("c.bioc.xml")), CorpusFormat::BioC);
        QCOMPARE(detectCorpusFormat(dir_.path("c.xml.gz")), CorpusFormat::BioC);  // through gzip
        QCOMPARE(detectCorpusFormat(dir_.path("brat")), CorpusFormat::Brat);
        // Leading blank lines (NCBI Disease starts with one) do not decide.
        QCOMPARE(detectCorpusFormat(dir_.write("lead.txt", "\n\n" + documents({7}))), CorpusFormat::PubTator);
        QCOMPARE(detectCorpusFormat(dir_.write("lead.xml", "\n  <?xml version=\"1.0\"?><collection/>")),
                 CorpusFormat::BioC);
        LINKSCOPE_EXPECT_PARSE_ERROR(detectCorpusFormat(dir_.path("absent.txt")), dir_.path("absent.txt"), 0,
                                     "no such corpus file or folder");
        QCOMPARE(corpusFormatFromName("brat"), std::optional(CorpusFormat::Brat));
        QVERIFY(!corpusFormatFromName("auto"));
        QCOMPARE(corpusFormatName(CorpusFormat::BioC), std::string_view("bioc"));
    }
    void readsEveryFormatAlike() {
        writeAllFormats();
        for (const char* input : {"c.txt", "c.bioc.xml", "c.xml.gz", "brat"}) {
            const Corpus corpus = readCorpus(dir_.path(input));
            QCOMPARE(pmidsOf(corpus), (std::vector<std::string>{"1", "2", "3"}));
            QCOMPARE(corpus.documents()[1].mentions.size(), std::size_t{1});
            QCOMPARE(corpus.documents()[1].mentions[0].text, std::string("Fever"));
        }
        // A named format is used as named: a PubTator file read as BioC is a BioC error.
        CorpusReadOptions bioc;
        bioc.format = CorpusFormat::BioC;
        LINKSCOPE_EXPECT_PARSE_ERROR(readCorpus(dir_.path("c.txt"), bioc), dir_.path("c.txt"), 11,
                                     "not well-formed XML");
        // Lenient reading is PubTator's: asked of another format it is refused, not ignored.
        CorpusReadOptions lenient;
        lenient.lenient = true;
        QVERIFY_THROWS_EXCEPTION(Error, readCorpus(dir_.path("brat"), lenient));
        QCOMPARE(readCorpus(dir_.path("c.txt"), lenient).size(), std::size_t{3});
    }
    void severalInputsOfSeveralFormats() {
        writeAllFormats();
        dir_.write("more.txt", documents({3, 4}));
        const std::vector<std::filesystem::path> inputs{dir_.path("brat"), dir_.path("more.txt")};
        const Corpus corpus = readCorpus(inputs);
        QCOMPARE(pmidsOf(corpus), (std::vector<std::string>{"1", "2", "3", "4"}));
        QCOMPARE(corpus.name, std::string("brat+more"));
        // The second copy of document 3 is recorded, not dropped silently.
        QCOMPARE(corpus.duplicates.size(), std::size_t{1});
        QCOMPARE(corpus.duplicates[0].pmid, std::string("3"));
        QVERIFY(corpus.duplicates[0].keptFile.find("brat") != std::string::npos);
        QCOMPARE(corpus.duplicates[0].droppedFile, dir_.path("more.txt").string());
        QCOMPARE(corpus.duplicates[0].droppedLine, std::size_t{1});
        QVERIFY(hasNote(corpus.diagnostics, "document 3 appears again (first at "));
        QCOMPARE(corpus.sourceFiles.size(), std::size_t{2});
        QVERIFY_THROWS_EXCEPTION(Error, readCorpus(std::span<const std::filesystem::path>()));
    }

    void splitsByPmidLists() {
        test::writeGzip(dir_.path("corpus_pubtator.txt.gz"), documents({1, 2, 3, 4, 5}));
        const std::vector<PmidListSplit> lists{{"train", dir_.write("trng.txt", "1\n3\n")},
                                               {"dev", dir_.write("dev.txt", "2\n")},
                                               {"test", dir_.write("test.txt", "5\n4\n")}};
        const SplitsFromPmidLists splits = readSplitsByPmidLists(dir_.path("corpus_pubtator.txt.gz"), lists);
        QCOMPARE(splits.splits.size(), std::size_t{3});
        QCOMPARE(splits.splits[0].name, std::string("train"));
        QCOMPARE(pmidsOf(splits.splits[0].corpus), (std::vector<std::string>{"1", "3"}));
        QCOMPARE(pmidsOf(splits.splits[1].corpus), (std::vector<std::string>{"2"}));
        QCOMPARE(pmidsOf(splits.splits[2].corpus), (std::vector<std::string>{"4", "5"}));  // corpus order
        QCOMPARE(splits.splits[2].corpus.name, std::string("test"));
        QVERIFY(splits.notes.empty());
        // The same over a brat folder and a BioC file.
        writeAllFormats();
        const std::vector<PmidListSplit> two{{"train", dir_.write("a.txt", "1\n2\n")},
                                             {"test", dir_.write("b.txt", "3\n")}};
        for (const char* input : {"brat", "c.bioc.xml"}) {
            const auto read = readSplitsByPmidLists(dir_.path(input), two);
            QCOMPARE(pmidsOf(read.splits[1].corpus), (std::vector<std::string>{"3"}));
        }
    }
    void documentsInNoListAreNoted() {
        dir_.write("all.txt", documents({1, 2, 3, 4, 5, 6, 7}));
        const std::vector<PmidListSplit> lists{{"train", dir_.write("trng.txt", "1\n")}};
        const auto read = readSplitsByPmidLists(dir_.path("all.txt"), lists);
        QCOMPARE(read.notes.size(), std::size_t{1});
        QCOMPARE(read.notes[0].file, dir_.path("all.txt").string());
        QVERIFY2(read.notes[0].message.find(
                     "6 of 7 documents are in no PMID list and in no split: 2, 3, 4, 5, 6, ...") != std::string::npos,
                 read.notes[0].message.c_str());
    }
    void listedButAbsentNamesTheListLine() {
        dir_.write("all.txt", documents({1, 2}));
        const auto list = dir_.write("test.txt", "2\n\n99\n98\n");
        const std::vector<PmidListSplit> lists{{"test", list}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitsByPmidLists(dir_.path("all.txt"), lists), list, 3,
                                     "PMID 99 of the test list is not in the corpus");
    }
    void aPmidInTwoListsIsAnError() {
        dir_.write("all.txt", documents({1, 2, 3}));
        const auto dev = dir_.write("dev.txt", "3\n1\n");
        const std::vector<PmidListSplit> lists{{"train", dir_.write("trng.txt", "1\n2\n")}, {"dev", dev}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitsByPmidLists(dir_.path("all.txt"), lists), dev, 2,
                                     "PMID 1 is also in the train list");
    }
    void badListsAndNames() {
        dir_.write("all.txt", documents({1, 2}));
        const auto list = dir_.write("l.txt", "1\n");
        const std::vector<PmidListSplit> twice{{"train", list}, {"train", dir_.write("l2.txt", "2\n")}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitsByPmidLists(dir_.path("all.txt"), twice), dir_.path("l2.txt"), 0,
                                     "a second PMID list for the split \"train\"");
        const std::vector<PmidListSplit> slash{{"../x", list}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitsByPmidLists(dir_.path("all.txt"), slash), list, 0, "path separator");
        const auto malformed = dir_.write("m.txt", "1\n2|t|Title\n");
        const std::vector<PmidListSplit> bad{{"train", malformed}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitsByPmidLists(dir_.path("all.txt"), bad), malformed, 2, "not a PMID");
        // The corpus's own errors keep their file and line.
        const auto broken = dir_.write("broken.txt", "1|t|Title\n1|a|Text\n1\t0\t99\tTitle\tT1\tC1\n");
        const std::vector<PmidListSplit> one{{"train", list}};
        LINKSCOPE_EXPECT_PARSE_ERROR(readSplitsByPmidLists(broken, one), broken, 3, "");
    }
    void parsesSplitArguments() {
        const PmidListSplit split = parsePmidListSplit("train=corpus_pubtator_pmids_trng.txt");
        QCOMPARE(split.split, std::string("train"));
        QCOMPARE(split.pmidList, std::filesystem::path("corpus_pubtator_pmids_trng.txt"));
        QCOMPARE(parsePmidListSplit("dev=a=b.txt").pmidList, std::filesystem::path("a=b.txt"));  // the first '=' splits
        for (const char* bad : {"train", "=x.txt", "train=", "a/b=x.txt"}) {
            try {
                parsePmidListSplit(bad);
                QFAIL(bad);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(bad) != std::string::npos, e.what());
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestCorpusInput)
#include "test_corpus_input.moc"
