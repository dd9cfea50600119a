// Saving and loading a SparseIndex: round trips, the refusal of an index made for another
// dictionary or other settings, and damaged files (truncated, wrong magic or version, flipped
// bytes, inconsistent content behind a valid checksum): always a clear error naming the file.
#include <zlib.h>

#include <cstring>

#include "fixtures.h"
#include "retrieval/sparse_index_io.h"
#include "retrieval_test_support.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

constexpr std::size_t kHeaderBytes = 76;  // see the layout in sparse_index_io.cpp

// Recomputes the trailing CRC-32, so that a deliberately inconsistent file passes the checksum
// and reaches the structural checks.
void resealChecksum(std::string& bytes) {
    const std::size_t body = bytes.size() - 4;
    const auto crc =
        static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), body));
    for (std::size_t i = 0; i < 4; ++i) bytes[body + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
}

std::uint64_t readU64(const std::string& bytes, std::size_t at) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, 8);  // little-endian machine, little-endian file
    return value;
}

void writeU32(std::string& bytes, std::size_t at, std::uint32_t value) { std::memcpy(bytes.data() + at, &value, 4); }

// Where the posting entries start: header, term bytes, term ends (u32), idf (f64), posting count,
// posting offsets (u64 each, terms + 1).
std::size_t entriesOffset(const std::string& bytes) {
    const std::uint64_t terms = readU64(bytes, 60);
    const std::uint64_t termBytes = readU64(bytes, 68);
    return kHeaderBytes + termBytes + terms * 4 + terms * 8 + 8 + (terms + 1) * 8;
}

}  // namespace

class TestSparseIndexIo : public QObject {
    Q_OBJECT

    test::FixtureDir dir_;
    NameDictionary dictionary_ = test::randomDictionary(21, 400);
    SparseIndex index_ = SparseIndex::build(dictionary_, TfidfSettings::bioSyn());

    std::filesystem::path saved(std::string_view name) {
        const auto file = dir_.path(name);
        saveSparseIndex(index_, file);
        return file;
    }
    void expectLoadFails(const std::filesystem::path& file, std::string_view fragment) {
        LINKSCOPE_EXPECT_PARSE_ERROR(loadSparseIndex(file, dictionary_, TfidfSettings::bioSyn()), file, 0, fragment);
    }

private Q_SLOTS:
    void roundTrip() {
        const auto file = saved("index.lsi");
        const SparseIndex loaded = loadSparseIndex(file, dictionary_, TfidfSettings::bioSyn());
        QCOMPARE(loaded.size(), index_.size());
        QVERIFY(loaded.settings() == index_.settings());
        QVERIFY(loaded.fingerprint() == index_.fingerprint());
        QCOMPARE(loaded.vectorizer().vocabularySize(), index_.vectorizer().vocabularySize());
        for (std::uint32_t t = 0; t < loaded.vectorizer().vocabularySize(); ++t) {
            QCOMPARE(loaded.vectorizer().term(t), index_.vectorizer().term(t));
            QCOMPARE(loaded.vectorizer().idf(t), index_.vectorizer().idf(t));
        }
        QCOMPARE(loaded.vectorizer().documentCount(), index_.vectorizer().documentCount());
        QVERIFY(loaded.postings().offsets == index_.postings().offsets);
        QVERIFY(loaded.postings().documents == index_.postings().documents);
        QVERIFY(loaded.postings().weights == index_.postings().weights);
        QCOMPARE(loaded.denseTerms(), index_.denseTerms());
        std::mt19937 random(3);
        std::vector<std::string> queries;
        for (int i = 0; i < 40; ++i) queries.push_back(test::randomName(random));
        const auto before = index_.search(queries, 10);
        const auto after = loaded.search(queries, 10);
        for (std::size_t q = 0; q < queries.size(); ++q) QVERIFY(test::rankingDifference(after[q], before[q]).empty());
    }

    void roundTripOfOtherSettings() {
        TfidfSettings settings = TfidfSettings::leNguyenWords();
        settings.maxN = 2;
        settings.sublinearTf = true;
        settings.norm = Norm::L1;
        settings.smoothIdf = false;
        settings.lowercase = false;
        const SparseIndex index = SparseIndex::build(dictionary_, settings);
        const auto file = dir_.path("words.lsi");
        saveSparseIndex(index, file);
        const SparseIndex loaded = loadSparseIndex(file, dictionary_, settings);
        QVERIFY(loaded.settings() == settings);
        QVERIFY(loaded.postings().weights == index.postings().weights);
        const auto info = readSparseIndexInfo(file);
        QCOMPARE(info.version, kSparseIndexFormatVersion);
        QVERIFY(info.settings == settings);
        QVERIFY(info.fingerprint == fingerprintOf(dictionary_));
        QCOMPARE(info.terms, std::uint64_t{index.vectorizer().vocabularySize()});
        QCOMPARE(info.fileBytes, std::uint64_t{std::filesystem::file_size(file)});
    }

    void emptyIndexRoundTrip() {
        const NameDictionary empty;
        const SparseIndex index = SparseIndex::build(empty, TfidfSettings::bioSyn());
        const auto file = dir_.path("empty.lsi");
        saveSparseIndex(index, file);
        const SparseIndex loaded = loadSparseIndex(file, empty, TfidfSettings::bioSyn());
        QCOMPARE(loaded.size(), 0u);
        QVERIFY(loaded.search("x", 3).empty());
    }

    void saveReplacesTheFileAndLeavesNoTemporaryFile() {
        const auto file = saved("replace.lsi");
        const auto firstSize = std::filesystem::file_size(file);
        const NameDictionary small{{"one name", {"A"}}};
        saveSparseIndex(SparseIndex::build(small, TfidfSettings::bioSyn()), file);
        QVERIFY(std::filesystem::file_size(file) < firstSize);
        QCOMPARE(loadSparseIndex(file, small, TfidfSettings::bioSyn()).size(), 1u);
        for (const auto& item : std::filesystem::directory_iterator(dir_.root()))
            QVERIFY2(item.path().filename().string().find(".tmp") == std::string::npos, item.path().c_str());
        QVERIFY_THROWS_EXCEPTION(Error, saveSparseIndex(index_, dir_.path("no-such-folder/index.lsi")));
    }

    void refusesAnotherDictionary() {
        const auto file = saved("dictionary.lsi");
        auto renamed = dictionary_;
        renamed[17].name += " x";
        auto relabelled = dictionary_;
        relabelled[3].ids.push_back("MESH:D999999");
        auto longer = dictionary_;
        longer.push_back({"extra", {"A"}});
        for (const NameDictionary* other : {&renamed, &relabelled, &longer}) {
            try {
                loadSparseIndex(file, *other, TfidfSettings::bioSyn());
                QFAIL("expected an Error");
            } catch (const ParseError& e) {
                QFAIL(e.what());  // the file is fine: this is not a parse error
            } catch (const Error& e) {
                const std::string message = e.what();
                QVERIFY2(message.starts_with(file.string() + ": "), e.what());
                QVERIFY2(
                    message.find("built for a different dictionary (400 names, fingerprint 0x") != std::string::npos,
                    e.what());
                QVERIFY2(message.find("than the one given (" + std::to_string(other->size()) + " names") !=
                             std::string::npos,
                         e.what());
                QVERIFY2(message.ends_with("rebuild it"), e.what());
            }
        }
    }

    void refusesOtherSettings() {
        const auto file = saved("settings.lsi");
        try {
            loadSparseIndex(file, dictionary_, TfidfSettings::leNguyenChars());
            QFAIL("expected an Error");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.starts_with(file.string() + ": "), e.what());
            QVERIFY2(message.find("other TF-IDF settings (char 1-2, lowercase, l2, smooth idf)") != std::string::npos,
                     e.what());
            QVERIFY2(message.find("requested (char 2-5,") != std::string::npos, e.what());
        }
        TfidfSettings sublinear = TfidfSettings::bioSyn();
        sublinear.sublinearTf = true;
        QVERIFY_THROWS_EXCEPTION(Error, loadSparseIndex(file, dictionary_, sublinear));
    }

    void missingAndEmptyFiles() {
        expectLoadFails(dir_.path("absent.lsi"), "cannot open");
        expectLoadFails(dir_.root(), "cannot open");  // a folder
        expectLoadFails(dir_.write("empty.lsi", ""), "empty file");
        LINKSCOPE_EXPECT_PARSE_ERROR(readSparseIndexInfo(dir_.path("absent.lsi")), dir_.path("absent.lsi"), 0,
                                     "cannot open");
    }

    void wrongMagicAndVersion() {
        std::string bytes = test::readFile(saved("good.lsi"));
        std::string magic = bytes;
        magic[0] = 'X';
        expectLoadFails(dir_.write("magic.lsi", magic), "not a Linkscope sparse index (wrong magic");
        expectLoadFails(dir_.write("text.lsi", "C565588||epidermolysis bullosa\n"), "wrong magic");
        std::string version = bytes;
        writeU32(version, 8, 3);
        expectLoadFails(dir_.write("version.lsi", version), "unsupported sparse index format version 3");
        LINKSCOPE_EXPECT_PARSE_ERROR(readSparseIndexInfo(dir_.path("version.lsi")), dir_.path("version.lsi"), 0,
                                     "version 3");
    }

    void truncatedFiles() {
        const std::string bytes = test::readFile(saved("whole.lsi"));
        std::vector<std::size_t> cuts{
            1, 7, 8, 20, kHeaderBytes - 1, kHeaderBytes, kHeaderBytes + 1, bytes.size() - 4, bytes.size() - 1};
        for (std::size_t i = 1; i < 16; ++i) cuts.push_back(bytes.size() * i / 16);
        for (const std::size_t cut : cuts) {
            const auto file = dir_.write("cut.lsi", bytes.substr(0, cut));
            // Too short for the magic: not recognisable; otherwise the file says it is truncated.
            expectLoadFails(file, cut < 8 ? "wrong magic" : "truncated sparse index");
        }
        expectLoadFails(dir_.write("longer.lsi", bytes + "extra"), "unexpected bytes after the end");
        // An index followed by 64 GB of holes (a sparse file): refused from its header and the
        // file's size, before anything past the header is read (it was read whole: bad_alloc).
        const auto huge = dir_.write("huge.lsi", bytes);
        std::error_code ec;
        std::filesystem::resize_file(huge, std::uintmax_t{64} << 30, ec);
        if (ec)
            QSKIP(qPrintable(QStringLiteral("this file system makes no 64 GB sparse file: %1")
                                 .arg(QString::fromStdString(ec.message()))));
        expectLoadFails(huge, "unexpected bytes after the end its header announces");
        std::filesystem::remove(huge);
    }

    void flippedBytes() {
        const std::string bytes = test::readFile(saved("flip.lsi"));
        std::vector<std::size_t> positions;
        for (std::size_t at = 0; at < bytes.size(); at += bytes.size() / 300 + 1) positions.push_back(at);
        for (std::size_t at = 0; at < kHeaderBytes; ++at) positions.push_back(at);  // every header byte
        positions.push_back(bytes.size() - 1);                                      // the checksum itself
        for (const std::size_t at : positions) {
            std::string damaged = bytes;
            damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
            const auto file = dir_.write("flipped.lsi", damaged);
            // Whatever the byte, a ParseError naming the file (which message depends on the field).
            LINKSCOPE_EXPECT_PARSE_ERROR(loadSparseIndex(file, dictionary_, TfidfSettings::bioSyn()), file, 0, "");
        }
        std::string body = bytes;
        body[kHeaderBytes + 3] = static_cast<char>(body[kHeaderBytes + 3] ^ 0x01);
        expectLoadFails(dir_.write("body.lsi", body), "checksum mismatch");
    }

    void inconsistentContentBehindAValidChecksum() {
        const std::string bytes = test::readFile(saved("sealed.lsi"));
        const std::size_t entries = entriesOffset(bytes);
        std::string outOfRange = bytes;
        writeU32(outOfRange, entries, 400);  // entry 400 of a 400-name dictionary
        resealChecksum(outOfRange);
        expectLoadFails(dir_.write("range.lsi", outOfRange), "corrupt sparse index: postings of term 0");
        std::string badTerm = bytes;
        badTerm[kHeaderBytes] = static_cast<char>(0xFF);  // first byte of the first term
        resealChecksum(badTerm);
        expectLoadFails(dir_.write("utf8.lsi", badTerm), "not valid UTF-8");
        std::string hugeCount = bytes;
        const std::uint64_t huge = std::uint64_t{1} << 40;
        std::memcpy(hugeCount.data() + 68, &huge, 8);  // term bytes
        resealChecksum(hugeCount);
        expectLoadFails(dir_.write("huge.lsi", hugeCount), "runs past the end");
        std::string badSettings = bytes;
        badSettings[20] = 7;  // analyzer
        resealChecksum(badSettings);
        expectLoadFails(dir_.write("settings.lsi", badSettings), "invalid settings");
    }
};

QTEST_APPLESS_MAIN(TestSparseIndexIo)
#include "test_sparse_index_io.moc"
