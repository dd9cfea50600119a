// The memory bounds the readers state, measured: each read runs in a child process whose peak
// resident size is reset just before it (/proc/self/clear_refs) and read just after (VmHWM),
// so the figure is what the read itself added. Bounds as the readers declare them:
//  - BioC XML (corpus/bioc_reader.h): within 16 x its text; a gzip holds its text once, and a
//    gzip bomb stops at its expansion bound (util/text_file.h), whatever it would expand to;
//  - PMID lists split over a corpus (corpus/corpus_input.h): within 16 x corpus + lists, and
//    a list of unknown ids stops at the first one, whatever its length;
//  - lines (util/line_reader.h): the line bound, whatever the decompressed size;
//  - readTextFile (util/text_file.h): at most 3 x its text.
// Inputs are a few megabytes (decompressed tens), so that the suite takes seconds.
#include "fixtures.h"
#include "peak_memory.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "corpus/bioc_reader.h"
#include "corpus/corpus_input.h"
#include "corpus/pmid_list.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/text_file.h"

using namespace linkscope;
using test::kFixedBytes;
using test::kMiB;
using test::measure;
using test::Measured;

namespace {

// Writes `pieces()` gzip-compressed, piece by piece (nothing of the size held at once).
void writeGzipStream(const std::filesystem::path& path, const std::function<bool(std::string&)>& nextPiece) {
    gzFile file = gzopen(path.c_str(), "wb1");
    QVERIFY(file);
    std::string piece;
    while (nextPiece(piece))
        QCOMPARE(gzwrite(file, piece.data(), static_cast<unsigned>(piece.size())), int(piece.size()));
    QCOMPARE(gzclose(file), Z_OK);
}

std::string bioCDocument(std::size_t pmid) {
    const std::string id = std::to_string(pmid);
    const std::string title = "Fever and cough in patient " + id + ".";
    const std::string abstract = "Cough persisted after fever; no rash was seen in case " + id + ".";
    const std::size_t abstractStart = title.size() + 1;
    return "<document><id>" + id + "</id>\n<passage><infon key=\"type\">title</infon><offset>0</offset><text>" + title +
           "</text>\n<annotation id=\"1\"><infon key=\"type\">Disease</infon>" +
           "<infon key=\"identifier\">MESH:D005334</infon><location offset=\"0\" length=\"5\"/><text>Fever</text>"
           "</annotation>\n</passage>\n<passage><infon key=\"type\">abstract</infon><offset>" +
           std::to_string(abstractStart) + "</offset><text>" + abstract + "</text>\n<annotation id=\"2\">" +
           "<infon key=\"type\">Disease</infon><infon key=\"identifier\">MESH:D003371</infon><location offset=\"" +
           std::to_string(abstractStart) +
           "\" length=\"5\"/><text>Cough</text></annotation>\n</passage>\n</document>\n";
}

}  // namespace

class TestReaderMemory : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    static void expectWithin(const test::Measured& measured, std::size_t bound, const char* what) {
        test::expectPeakWithin(measured, bound, what);
    }

private Q_SLOTS:
    void initTestCase() {
        if (const char* why = test::peakNotMeasurable()) QSKIP(why);
    }

    void bioCWithinSixteenTimesItsText() {
        const auto file = dir_.path("collection.xml");
        {
            std::ofstream out(file, std::ios::binary);
            out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<collection><source>test</source>\n";
            for (std::size_t pmid = 1; pmid <= 12000; ++pmid) out << bioCDocument(pmid);
            out << "</collection>\n";
        }
        const std::size_t bytes = std::filesystem::file_size(file);
        const Measured measured = measure([&] {
            const Corpus corpus = readBioC(file);
            if (corpus.size() != 12000)
                throw std::runtime_error("read " + std::to_string(corpus.size()) + " documents");
        });
        QCOMPARE(measured.outcome, std::string("ok"));
        expectWithin(measured, 16 * bytes + kFixedBytes, "BioC, plain");
    }

    // A gzip that expands to many megabytes, within the gzip expansion bound: the text is held
    // once, not twice or three times (a doubling string and pugixml's copy of it). Each line is a
    // comment with random letters, so that the file compresses as text does, not as a bomb.
    void bioCGzipHoldsItsTextOnce() {
        const auto file = dir_.path("large.xml.gz");
        constexpr std::size_t kDecompressed = 64 * kMiB;
        std::mt19937 random(38);
        std::size_t written = 0;
        writeGzipStream(file, [&](std::string& piece) {
            if (written >= kDecompressed) return false;
            if (written == 0) {
                piece = "<collection>\n";
            } else {
                piece.assign("<!-- ");
                for (int i = 0; i < 600; ++i) piece += static_cast<char>('a' + random() % 26);
                piece.append(4095 - 4 - piece.size(), ' ');
                piece += "-->\n";
            }
            if (written + piece.size() >= kDecompressed) piece += "</collection>\n";
            written += piece.size();
            return true;
        });
        QVERIFY2(written < kMaxGzipExpansion * std::filesystem::file_size(file), "the input compresses too well");
        const Measured measured = measure([&] { (void)readBioC(file); });
        QVERIFY2(measured.outcome.find("holds no <document>") != std::string::npos, measured.outcome.c_str());
        // The text, its newline index (an eighth) and the fixed part.
        expectWithin(measured, written + written / 4 + kFixedBytes, "BioC, gzip of text");
    }

    // A gzip bomb (blanks that compress a thousand times) is refused once it has expanded to
    // its bound, kMaxGzipExpansion times its size or kGzipTextAlwaysAllowed: the memory follows
    // the gzip, not what it would expand to. The message names the file, the bound and the way on.
    void bioCGzipBombStopsAtItsExpansionBound() {
        const auto file = dir_.path("bomb.xml.gz");
        constexpr std::size_t kDecompressed = 256 * kMiB;
        std::size_t written = 0;
        writeGzipStream(file, [&](std::string& piece) {
            if (written >= kDecompressed) return false;
            piece = written == 0 ? "<collection>\n" : std::string(4095, ' ') + '\n';
            written += piece.size();
            return true;
        });
        const std::size_t compressed = std::filesystem::file_size(file);
        const std::size_t bound = std::max(kMaxGzipExpansion * compressed, kGzipTextAlwaysAllowed);
        QVERIFY(bound < kDecompressed / 4);
        const Measured measured = measure([&] { (void)readBioC(file); });
        const std::string expected = "the gzip file expands to more than " + std::to_string(bound) + " bytes";
        QVERIFY2(measured.outcome.starts_with(file.string() + ":") &&
                     measured.outcome.find(expected) != std::string::npos &&
                     measured.outcome.find("gunzip") != std::string::npos,
                 measured.outcome.c_str());
        expectWithin(measured, bound + bound / 4 + kFixedBytes, "BioC, gzip bomb of blanks");
    }

    void aListOfUnknownIdsStopsAtTheFirst() {
        std::string corpus;
        for (int pmid = 1; pmid <= 2000; ++pmid)
            corpus += std::to_string(pmid) + "|t|Title " + std::to_string(pmid) + "\n" + std::to_string(pmid) +
                      "|a|Abstract text.\n\n";
        const auto corpusFile = dir_.write("corpus.txt", corpus);
        const auto list = dir_.path("unknown.txt");
        {
            std::ofstream out(list);
            for (std::size_t id = 100000000; id < 101000000; ++id) out << id << '\n';  // a million ids, 9 MB
        }
        const std::size_t bytes = corpus.size() + std::filesystem::file_size(list);
        const std::vector<PmidListSplit> lists{{"test", list}};
        const Measured measured = measure([&] { (void)readSplitsByPmidLists(corpusFile, lists); });
        QVERIFY2(measured.outcome.find(list.string() + ":1: PMID 100000000 of the test list is not in the corpus") !=
                     std::string::npos,
                 measured.outcome.c_str());
        expectWithin(measured, 16 * bytes + kFixedBytes, "PMID list of unknown ids");
    }

    void listsNamingTheWholeCorpusWithinSixteenTimesTheirInput() {
        std::string corpus, train, test;
        for (int pmid = 1; pmid <= 60000; ++pmid) {
            const std::string id = std::to_string(pmid);
            corpus += id + "|t|Title " + id + "\n" + id + "|a|Abstract text of " + id + ".\n" + id +
                      "\t0\t5\tTitle\tDisease\tD000001\n\n";
            (pmid % 5 == 0 ? test : train) += id + "\n";
        }
        test += "999999999\n";  // unknown, at the end: everything before it has been read
        const auto corpusFile = dir_.write("whole.txt", corpus);
        const std::vector<PmidListSplit> lists{{"train", dir_.write("train.txt", train)},
                                               {"test", dir_.write("test.txt", test)}};
        const std::size_t bytes = corpus.size() + train.size() + test.size();
        const Measured measured = measure([&] { (void)readSplitsByPmidLists(corpusFile, lists); });
        QVERIFY2(measured.outcome.find("PMID 999999999 of the test list is not in the corpus") != std::string::npos,
                 measured.outcome.c_str());
        expectWithin(measured, 16 * bytes + kFixedBytes, "PMID lists over a corpus");
    }

    // Line readers hold a line: a gzip of blank lines costs its buffer, not its size.
    void blankLinesCostNothing() {
        const auto file = dir_.path("blank.txt.gz");
        std::size_t written = 0;
        writeGzipStream(file, [&](std::string& piece) {
            piece = std::string(kMiB, '\n');
            written += piece.size();
            return written <= 128 * kMiB;
        });
        const Measured measured = measure([&] { (void)readPmidList(file); });
        QVERIFY2(measured.outcome.find("no PMIDs") != std::string::npos, measured.outcome.c_str());
        expectWithin(measured, kFixedBytes, "PMID list, gzip of newlines");
    }

    void readTextFileWithinThreeTimesItsText() {
        const auto file = dir_.path("large.json.gz");
        std::mt19937 random(41);
        std::size_t written = 0;
        writeGzipStream(file, [&](std::string& piece) {
            if (written >= 40 * kMiB) return false;
            if (written == 0) {
                piece = "[\"";
            } else {  // a random letter in every eight: compresses as text does, within the gzip bound
                piece.assign(kMiB, 'x');
                for (std::size_t i = 0; i < piece.size(); i += 8) piece[i] = static_cast<char>('a' + random() % 26);
            }
            if (written + piece.size() >= 40 * kMiB) piece += "\"]";
            written += piece.size();
            return true;
        });
        QVERIFY2(written < kMaxGzipExpansion * std::filesystem::file_size(file), "the input compresses too well");
        const Measured measured = measure([&] {
            if (readTextFile(file).size() != written) throw std::runtime_error("short text");
        });
        QCOMPARE(measured.outcome, std::string("ok"));
        expectWithin(measured, 3 * written + kFixedBytes, "readTextFile, gzip");
    }
};

QTEST_APPLESS_MAIN(TestReaderMemory)
#include "test_reader_memory.moc"
