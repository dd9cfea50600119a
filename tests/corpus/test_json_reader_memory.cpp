// The memory bounds the BioC JSON and BigBio readers state, measured as test_reader_memory does
// (a child process whose peak resident size is reset just before the read and read just after):
//  - read one document at a time (BioCJsonDocumentReader, BigBioDocumentReader), a file larger
//    than what a read may add costs what one document costs, not what the file holds;
//  - one endless value or line behind a gzip bomb stops at the per-document bound
//    (kMaxBioCJsonValueBytes, kMaxBigBioLineBytes), held at most a few times over while it grows.
#include "fixtures.h"
#include "peak_memory.h"

#include <zlib.h>

#include <fstream>
#include <functional>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "corpus/bigbio_reader.h"
#include "corpus/bioc_json_reader.h"
#include "corpus/bioc_json_scanner.h"

using namespace linkscope;
using test::kFixedBytes;
using test::kMiB;
using test::measure;
using test::Measured;

namespace {

constexpr std::size_t kDocuments = 60000;

std::string titleOf(std::size_t pmid) { return "Fever and cough in patient " + std::to_string(pmid) + "."; }
std::string abstractOf(std::size_t pmid) {
    return "Cough persisted after fever; no rash was seen in case " + std::to_string(pmid) + ".";
}

std::string bioCJsonDocument(std::size_t pmid) {
    const std::string title = titleOf(pmid);
    const std::string start = std::to_string(title.size() + 1);
    return "{\"id\":\"" + std::to_string(pmid) +
           "\",\"passages\":[{\"offset\":0,\"infons\":{\"type\":\"title\"},\"text\":\"" + title +
           "\",\"annotations\":[{\"id\":\"1\",\"infons\":{\"type\":\"Disease\",\"identifier\":\"D005334\"},"
           "\"text\":\"Fever\",\"locations\":[{\"offset\":0,\"length\":5}]}]},{\"offset\":" +
           start + ",\"text\":\"" + abstractOf(pmid) +
           "\",\"annotations\":[{\"id\":\"2\",\"infons\":{\"type\":\"Disease\",\"identifier\":\"D003371\"},"
           "\"text\":\"Cough\",\"locations\":[{\"offset\":" +
           start + ",\"length\":5}]}]}]}";
}

std::string bigBioLine(std::size_t pmid) {
    const std::string title = titleOf(pmid);
    const std::string abstract = abstractOf(pmid);
    const std::size_t start = title.size() + 1;
    return "{\"id\":\"" + std::to_string(pmid) + "\",\"document_id\":\"" + std::to_string(pmid) +
           "\",\"passages\":[{\"id\":\"t\",\"type\":\"title\",\"text\":[\"" + title + "\"],\"offsets\":[[0," +
           std::to_string(title.size()) + "]]},{\"id\":\"a\",\"type\":\"abstract\",\"text\":[\"" + abstract +
           "\"],\"offsets\":[[" + std::to_string(start) + "," + std::to_string(start + abstract.size()) +
           "]]}],\"entities\":[{\"id\":\"e\",\"type\":\"Disease\",\"text\":[\"Cough\"],\"offsets\":[[" +
           std::to_string(start) + "," + std::to_string(start + 5) +
           "]],\"normalized\":[{\"db_name\":\"MESH\",\"db_id\":\"D003371\"}]}],\"events\":[],\"coreferences\":[],"
           "\"relations\":[]}\n";
}

// A gzip file: `head`, then `repeats` members of `chunk` (nothing of the expanded size is held).
void writeBomb(const std::filesystem::path& path, const std::string& head, const std::string& chunk,
               std::size_t repeats) {
    gzFile file = gzopen(path.c_str(), "wb9");
    QVERIFY(file);
    QCOMPARE(gzwrite(file, head.data(), static_cast<unsigned>(head.size())), int(head.size()));
    for (std::size_t i = 0; i < repeats; ++i)
        QCOMPARE(gzwrite(file, chunk.data(), static_cast<unsigned>(chunk.size())), int(chunk.size()));
    QCOMPARE(gzclose(file), Z_OK);
}

}  // namespace

class TestJsonReaderMemory : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    static void expectWithin(const test::Measured& measured, std::size_t bound, const char* what) {
        test::expectPeakWithin(measured, bound, what);
    }

private Q_SLOTS:
    void initTestCase() {
        if (const char* why = test::peakNotMeasurable()) QSKIP(why);
    }

    void bioCJsonStreamsOneDocumentAtATime() {
        const auto file = dir_.path("collection.json");
        {
            std::ofstream out(file, std::ios::binary);
            out << "{\"source\":\"test\",\"documents\":[\n";
            for (std::size_t pmid = 1; pmid <= kDocuments; ++pmid)
                out << (pmid > 1 ? ",\n" : "") << bioCJsonDocument(pmid);
            out << "\n]}\n";
        }
        QVERIFY(std::filesystem::file_size(file) > kFixedBytes);  // more than a read may add
        const Measured measured = measure([&] {
            BioCJsonDocumentReader reader(file);
            std::size_t read = 0;
            while (reader.next()) ++read;
            if (read != kDocuments) throw std::runtime_error("read " + std::to_string(read) + " documents");
        });
        QCOMPARE(measured.outcome, std::string("ok"));
        expectWithin(measured, kFixedBytes, "BioC JSON, one document at a time");
    }

    void bigBioStreamsOneLineAtATime() {
        const auto file = dir_.path("corpus.jsonl");
        {
            std::ofstream out(file, std::ios::binary);
            for (std::size_t pmid = 1; pmid <= kDocuments; ++pmid) out << bigBioLine(pmid);
        }
        QVERIFY(std::filesystem::file_size(file) > kFixedBytes);  // more than a read may add
        const Measured measured = measure([&] {
            BigBioDocumentReader reader(file);
            std::size_t read = 0;
            while (reader.next()) ++read;
            if (read != kDocuments) throw std::runtime_error("read " + std::to_string(read) + " documents");
        });
        QCOMPARE(measured.outcome, std::string("ok"));
        expectWithin(measured, kFixedBytes, "BigBio, one line at a time");
    }

    // 1 GiB of one string in a few megabytes of gzip: refused at the per-value bound.
    void bioCJsonEndlessValueStopsAtItsBound() {
        const auto file = dir_.path("bomb.json.gz");
        writeBomb(file, "{\"source\":\"", std::string(kMiB, 'x'), 1024);
        const Measured measured = measure([&] { (void)readBioCJson(file); });
        QVERIFY2(measured.outcome.find("a value of more than") != std::string::npos, measured.outcome.c_str());
        expectWithin(measured, 3 * kMaxBioCJsonValueBytes + kFixedBytes, "BioC JSON, endless value");
    }

    void bigBioEndlessLineStopsAtItsBound() {
        const auto file = dir_.path("bomb.jsonl.gz");
        writeBomb(file, "{\"id\":\"", std::string(kMiB, 'x'), 1024);
        const Measured measured = measure([&] { (void)readBigBio(file); });
        QVERIFY2(measured.outcome.find("longer than") != std::string::npos, measured.outcome.c_str());
        expectWithin(measured, 3 * kMaxBigBioLineBytes + kFixedBytes, "BigBio, endless line");
    }
};

QTEST_GUILESS_MAIN(TestJsonReaderMemory)
#include "test_json_reader_memory.moc"
