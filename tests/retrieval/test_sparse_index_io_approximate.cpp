// Saving and loading an approximate SparseIndex (format version 2: the names' rows and the 3-gram
// candidate stage), at small scale with approximateAbove lowered: the loaded index returns exactly
// the candidates of the one it was saved from, its arrays stay in the mapped file as long as the
// index (or a copy) lives, and damaged files are refused with a ParseError naming the file:
// truncated, flipped bytes, counts larger than the file, ids out of range, padding, behind a
// valid checksum too.
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "fixtures.h"
#include "retrieval/sparse_index_io.h"
#include "retrieval_test_support.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

constexpr std::size_t kCandidates = 24;

SparseIndexOptions approximateOptions() {
    SparseIndexOptions options;
    options.approximateAbove = 100;  // the suites' dictionaries have a few hundred names
    options.approximate.candidates = kCandidates;
    return options;
}

void resealChecksum(std::string& bytes) {
    const std::size_t body = bytes.size() - 4;
    const auto crc =
        static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), body));
    for (std::size_t i = 0; i < 4; ++i) bytes[body + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
}

template <typename T>
void put(std::string& bytes, std::size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof(T));  // little-endian machine, little-endian file
}

std::size_t padded(std::size_t at) { return (at + 7) / 8 * 8; }

// Where version 2's sections start, from the index that was saved (the layout in
// sparse_index_io.cpp).
struct Layout {
    std::size_t rowCount = 0;        // u64 row entry count
    std::size_t rowTerms = 0;        // the rows' term ids
    std::size_t rowWeights = 0;      // their weights
    std::size_t trigramCount = 0;    // u64 3-gram count
    std::size_t trigramEntries = 0;  // u32 3-gram posting entries
    std::size_t nameHashes = 0;      // u64 name hashes
    std::size_t hashedEntries = 0;   // u32 their entries
    std::size_t rowWidth = 0;

    explicit Layout(const SparseIndex& index) {
        const auto bytesOf = [](const TfidfVectorizer& model) {
            std::size_t bytes = 0;
            for (std::uint32_t t = 0; t < model.vocabularySize(); ++t) bytes += model.term(t).size();
            return bytes;
        };
        const std::size_t names = index.size();
        const std::size_t terms = index.vectorizer().vocabularySize();
        rowWidth = std::holds_alternative<SparseRowsView<std::uint16_t>>(index.rows()) ? 2 : 4;
        const std::size_t entries = std::visit([](const auto& rows) { return rows.terms.size(); }, index.rows());
        std::size_t at = padded(80 + bytesOf(index.vectorizer()));
        at = padded(at + terms * 4) + terms * 8;
        rowCount = at;
        rowTerms = at + 8 + (names + 1) * 8;
        rowWeights = padded(rowTerms + entries * rowWidth);
        trigramCount = padded(rowWeights + entries * 4);
        const TfidfVectorizer& trigrams = index.trigrams().vectorizer();
        const std::size_t trigramTerms = trigrams.vocabularySize();
        at = padded(trigramCount + 24 + bytesOf(trigrams));
        at = padded(at + trigramTerms * 4) + trigramTerms * 8;
        trigramEntries = at + 8 + (trigramTerms + 1) * 8;
        const std::size_t postings = index.trigrams().postings().documents.size();
        nameHashes = padded(padded(trigramEntries + postings * 4) + postings * 4);
        hashedEntries = nameHashes + names * 8;
    }
};

bool sameCandidates(const std::vector<Candidate>& a, const std::vector<Candidate>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].entry != b[i].entry || std::memcmp(&a[i].score, &b[i].score, sizeof(float)) != 0) return false;
    return true;
}

template <class View>
bool sameArrays(const View& a, const View& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Whether this process has `file` mapped (its line in /proc/self/maps).
bool isMapped(const std::filesystem::path& file) {
    std::ifstream maps("/proc/self/maps");
    const std::string name = std::filesystem::canonical(file).string();
    for (std::string line; std::getline(maps, line);)
        if (line.size() >= name.size() && line.ends_with(name)) return true;
    return false;
}

}  // namespace

class TestSparseIndexIoApproximate : public QObject {
    Q_OBJECT

    test::FixtureDir dir_;
    NameDictionary dictionary_ = test::randomDictionary(23, 600);
    SparseIndex index_ = SparseIndex::build(dictionary_, TfidfSettings::bioSyn(), approximateOptions());

    std::filesystem::path saved(std::string_view name) {
        const auto file = dir_.path(name);
        saveSparseIndex(index_, file);
        return file;
    }
    SparseIndex load(const std::filesystem::path& file) {
        return loadSparseIndex(file, dictionary_, TfidfSettings::bioSyn(), approximateOptions());
    }
    void expectLoadFails(const std::filesystem::path& file, std::string_view fragment) {
        LINKSCOPE_EXPECT_PARSE_ERROR(load(file), file, 0, fragment);
    }
    // The saved index with `change` made to its bytes and the checksum made right again.
    std::filesystem::path sealed(std::string_view name, const std::function<void(std::string&)>& change) {
        std::string bytes = test::readFile(saved("base.lsi"));
        change(bytes);
        resealChecksum(bytes);
        return dir_.write(name, bytes);
    }

    static std::vector<std::string> queries(const NameDictionary& dictionary) {
        std::mt19937 random(5);
        std::vector<std::string> texts;
        for (int i = 0; i < 150; ++i) texts.push_back(test::randomName(random));
        for (std::size_t i = 0; i < dictionary.size(); i += 7) texts.push_back(dictionary[i].name);
        texts.push_back("");
        texts.push_back("zzzz");
        return texts;
    }
    static void expectSameSearches(const SparseIndex& loaded, const SparseIndex& built,
                                   const NameDictionary& dictionary) {
        const auto texts = queries(dictionary);
        const auto before = built.search(texts, 10, 2);
        const auto after = loaded.search(texts, 10, 1);
        std::size_t found = 0;
        for (std::size_t q = 0; q < texts.size(); ++q) {
            QVERIFY2(sameCandidates(after[q], before[q]), texts[q].c_str());
            QVERIFY2(sameCandidates(loaded.search(texts[q], 5), built.search(texts[q], 5)), texts[q].c_str());
            found += after[q].size();
        }
        QVERIFY(found > texts.size());  // the searches found something to compare
    }

private Q_SLOTS:
    void roundTripGivesTheSameCandidates() {
        QVERIFY(index_.approximate());
        const auto file = saved("index.lsi");
        const auto info = readSparseIndexInfo(file);
        QCOMPARE(info.version, kApproximateSparseIndexFormatVersion);
        QVERIFY(info.approximate);
        QCOMPARE(info.fileBytes, std::uint64_t{std::filesystem::file_size(file)});
        const SparseIndex loaded = load(file);
        QVERIFY(loaded.approximate());
        QCOMPARE(loaded.size(), index_.size());
        QVERIFY(loaded.fingerprint() == index_.fingerprint());
        QCOMPARE(loaded.vectorizer().vocabularySize(), index_.vectorizer().vocabularySize());
        QVERIFY(std::holds_alternative<SparseRowsView<std::uint16_t>>(loaded.rows()));
        const auto& rows = std::get<SparseRowsView<std::uint16_t>>(loaded.rows());
        const auto& builtRows = std::get<SparseRowsView<std::uint16_t>>(index_.rows());
        QVERIFY(sameArrays(rows.offsets, builtRows.offsets));
        QVERIFY(sameArrays(rows.terms, builtRows.terms));
        QVERIFY(sameArrays(rows.weights, builtRows.weights));
        const auto& trigrams = loaded.trigrams();
        QCOMPARE(trigrams.vectorizer().vocabularySize(), index_.trigrams().vectorizer().vocabularySize());
        QVERIFY(sameArrays(trigrams.postings().documents, index_.trigrams().postings().documents));
        QVERIFY(sameArrays(trigrams.postings().weights, index_.trigrams().postings().weights));
        QVERIFY(sameArrays(trigrams.nameHashes(), index_.trigrams().nameHashes()));
        QCOMPARE(trigrams.options().candidates, kCandidates);  // the options of the load, not saved
        QVERIFY(loaded.memoryBytes() > rows.bytes() + trigrams.postings().bytes());
        expectSameSearches(loaded, index_, dictionary_);
        // Loaded with another candidate count: the load's options decide how it searches.
        SparseIndexOptions more = approximateOptions();
        more.approximate.candidates = 200;
        QCOMPARE(loadSparseIndex(file, dictionary_, TfidfSettings::bioSyn(), more).trigrams().options().candidates,
                 std::size_t{200});
    }

    void wideRowsOfALargeVocabulary() {
        // More than 65,536 words: the rows keep 32-bit term ids.
        std::mt19937 random(11);
        NameDictionary dictionary;
        for (int i = 0; i < 2800; ++i) {
            std::string name;
            for (int w = 0; w < 25; ++w)
                name += (w ? " " : "") + test::randomName(random, "abcdefghijklmnopqrstuvwxyz");
            dictionary.push_back({name, {"D" + std::to_string(i)}});
        }
        const SparseIndex built = SparseIndex::build(dictionary, TfidfSettings::leNguyenWords(), approximateOptions());
        QVERIFY(built.vectorizer().vocabularySize() > kNarrowVocabularyLimit);
        QVERIFY(std::holds_alternative<SparseRowsView<std::uint32_t>>(built.rows()));
        const auto file = dir_.path("wide.lsi");
        saveSparseIndex(built, file);
        const SparseIndex loaded =
            loadSparseIndex(file, dictionary, TfidfSettings::leNguyenWords(), approximateOptions());
        QVERIFY(std::holds_alternative<SparseRowsView<std::uint32_t>>(loaded.rows()));
        QVERIFY(sameArrays(std::get<SparseRowsView<std::uint32_t>>(loaded.rows()).terms,
                           std::get<SparseRowsView<std::uint32_t>>(built.rows()).terms));
        for (std::size_t i = 0; i < dictionary.size(); i += 97)
            QVERIFY(sameCandidates(loaded.search(dictionary[i].name, 5), built.search(dictionary[i].name, 5)));
    }

    void theIndexKeepsItsMapping() {
        const auto file = saved("mapped.lsi");
        QVERIFY(!isMapped(file));
        std::optional<SparseIndex> copy;
        {
            const SparseIndex loaded = load(file);
            QVERIFY(isMapped(file));  // the rows and postings are read in place
            copy.emplace(loaded);
        }
        QVERIFY(isMapped(file));  // the copy shares the mapping
        QVERIFY(sameCandidates(copy->search(dictionary_[3].name, 5), index_.search(dictionary_[3].name, 5)));
        copy.reset();
        QVERIFY(!isMapped(file));  // unmapped with the last index that used it
        // An exact index is copied into memory: nothing stays mapped.
        const auto exact = dir_.path("exact.lsi");
        saveSparseIndex(SparseIndex::build(dictionary_, TfidfSettings::bioSyn()), exact);
        QCOMPARE(readSparseIndexInfo(exact).version, kSparseIndexFormatVersion);
        const SparseIndex loadedExact = loadSparseIndex(exact, dictionary_, TfidfSettings::bioSyn());
        QVERIFY(!loadedExact.approximate());
        QVERIFY(!isMapped(exact));
        // Replaced while mapped (the writer renames a new file over it): the loaded index still
        // searches the file it mapped.
        const SparseIndex before = load(file);
        saveSparseIndex(SparseIndex::build(dictionary_, TfidfSettings::bioSyn()), file);
        QVERIFY(sameCandidates(before.search(dictionary_[9].name, 5), index_.search(dictionary_[9].name, 5)));
    }

    void refusesAnotherDictionaryOrSettings() {
        const auto file = saved("other.lsi");
        auto renamed = dictionary_;
        renamed[17].name += " x";
        try {
            loadSparseIndex(file, renamed, TfidfSettings::bioSyn(), approximateOptions());
            QFAIL("expected an Error");
        } catch (const ParseError& e) {
            QFAIL(e.what());
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("different dictionary") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, loadSparseIndex(file, dictionary_, TfidfSettings::leNguyenChars()));
    }

    void truncatedFiles() {
        const std::string bytes = test::readFile(saved("whole.lsi"));
        std::vector<std::size_t> cuts{8, 20, 76, 79, 80, 81, bytes.size() - 4, bytes.size() - 1};
        for (std::size_t i = 1; i < 24; ++i) cuts.push_back(bytes.size() * i / 24);
        for (const std::size_t cut : cuts) expectLoadFails(dir_.write("cut.lsi", bytes.substr(0, cut)), "truncated");
        expectLoadFails(dir_.write("longer.lsi", bytes + "extra"), "unexpected bytes after the end");
    }

    void flippedBytes() {
        const std::string bytes = test::readFile(saved("flip.lsi"));
        for (std::size_t at = 0; at < bytes.size(); at += bytes.size() / 200 + 1) {
            std::string damaged = bytes;
            damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
            const auto file = dir_.write("flipped.lsi", damaged);
            LINKSCOPE_EXPECT_PARSE_ERROR(load(file), file, 0, "");
        }
    }

    void mutationsBehindAValidChecksum() {
        // What fuzz_sparse_index does with its size and CRC-32 fixed, replayed here on the saved
        // index: random bytes changed, the checksum made right; the load refuses with an Error or
        // gives an index whose searches run.
        const std::string bytes = test::readFile(saved("mutate.lsi"));
        std::mt19937 random(17);
        std::uniform_int_distribution<std::size_t> position(80, bytes.size() - 5);
        std::uniform_int_distribution<int> value(0, 255), count(1, 4);
        std::size_t refused = 0;
        for (int round = 0; round < 300; ++round) {
            std::string damaged = bytes;
            for (int i = count(random); i > 0; --i) damaged[position(random)] = static_cast<char>(value(random));
            resealChecksum(damaged);
            const auto file = dir_.write("mutated.lsi", damaged);
            try {
                const SparseIndex index = load(file);
                for (std::size_t q = 0; q < dictionary_.size(); q += 50) (void)index.search(dictionary_[q].name, 5);
            } catch (const Error&) {
                ++refused;
            }
        }
        QVERIFY(refused > 0);
    }

    void countsLargerThanTheFile() {
        const Layout layout(index_);
        const std::uint64_t huge = std::uint64_t{1} << 40;
        expectLoadFails(sealed("rows.lsi", [&](std::string& b) { put(b, layout.rowCount, huge); }),
                        "row term ids (1099511627776 values) run past the end");
        expectLoadFails(sealed("trigrams.lsi", [&](std::string& b) { put(b, layout.trigramCount, huge); }),
                        "corrupt sparse index");
        expectLoadFails(sealed("trigram-bytes.lsi", [&](std::string& b) { put(b, layout.trigramCount + 8, huge); }),
                        "3-grams (1099511627776 bytes) runs past the end");
        expectLoadFails(sealed("documents.lsi", [&](std::string& b) { put(b, layout.trigramCount + 16, huge); }),
                        "corrupt sparse index: the 3-gram model was fitted on");
        // A row count one short: every later section is read from the wrong place.
        expectLoadFails(sealed("short.lsi",
                               [&](std::string& b) {
                                   std::uint64_t count = 0;
                                   std::memcpy(&count, b.data() + layout.rowCount, 8);
                                   put(b, layout.rowCount, count - 1);
                               }),
                        "corrupt sparse index");
    }

    void idsOutOfRange() {
        const Layout layout(index_);
        QCOMPARE(layout.rowWidth, std::size_t{2});
        expectLoadFails(sealed("term.lsi", [&](std::string& b) { put(b, layout.rowTerms, std::uint16_t{0xFFFF}); }),
                        "corrupt sparse index: the row of name 0 has terms out of range or not sorted");
        expectLoadFails(sealed("entry.lsi", [&](std::string& b) { put(b, layout.trigramEntries, std::uint32_t{600}); }),
                        "corrupt sparse index: 3-gram postings of term 0 are out of range or not sorted");
        expectLoadFails(
            sealed("hashed.lsi", [&](std::string& b) { put(b, layout.hashedEntries + 4, std::uint32_t{600}); }),
            "corrupt sparse index: a hashed name's entry is out of range");
        expectLoadFails(sealed("hashes.lsi", [&](std::string& b) { put(b, layout.nameHashes, ~std::uint64_t{0}); }),
                        "corrupt sparse index: the name hashes are not sorted");
        expectLoadFails(sealed("weight.lsi", [&](std::string& b) { put(b, layout.rowWeights, -1.0f); }),
                        "corrupt sparse index: a weight of name 0 is not a positive number");
        expectLoadFails(sealed("width.lsi", [&](std::string& b) { put(b, 76, std::uint32_t{3}); }),
                        "corrupt sparse index: rows with term ids of 3 bytes");
        // The first padding byte after the terms (80 + term bytes, when those are not a multiple of 8).
        std::size_t termBytes = 0;
        for (std::uint32_t t = 0; t < index_.vectorizer().vocabularySize(); ++t)
            termBytes += index_.vectorizer().term(t).size();
        if ((80 + termBytes) % 8 != 0)
            expectLoadFails(sealed("padding.lsi", [&](std::string& b) { b[80 + termBytes] = 'x'; }),
                            "non-zero padding after the terms");
        // A version 1 body under a version 2 header, and the reverse.
        const auto exact = dir_.path("exact.lsi");
        saveSparseIndex(SparseIndex::build(dictionary_, TfidfSettings::bioSyn()), exact);
        std::string asApproximate = test::readFile(exact);
        put(asApproximate, 8, std::uint32_t{2});
        resealChecksum(asApproximate);
        expectLoadFails(dir_.write("v1as2.lsi", asApproximate), "corrupt sparse index");
        expectLoadFails(sealed("v2as1.lsi", [](std::string& b) { put(b, 8, std::uint32_t{1}); }),
                        "corrupt sparse index");
    }
};

QTEST_APPLESS_MAIN(TestSparseIndexIoApproximate)
#include "test_sparse_index_io_approximate.moc"
