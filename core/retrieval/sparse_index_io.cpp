#include "retrieval/sparse_index_io.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "retrieval/mapped_file.h"
#include "retrieval/sparse_columns_view.h"
#include "retrieval/sparse_rows_view.h"
#include "retrieval/trigram_candidates.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::retrieval {
namespace {

// Scalars and arrays are little-endian.
//
// Version 1 (an exact index); no padding.
//   offset size
//        0    8  magic "LSSPARSE"
//        8    4  u32 format version
//       12    8  u64 total file size in bytes, checksum included
//       20    8  u8 analyzer (0 char, 1 word), u8 lowercase, u8 English stop words, u8 norm
//                (0 none, 1 l1, 2 l2), u8 use idf, u8 smooth idf, u8 sublinear tf, u8 zero
//       28    8  u32 min n, u32 max n
//       36   16  u64 dictionary names N, u64 dictionary hash (DictionaryFingerprint)
//       52    8  u64 documents the model was fitted on (= names)
//       60    8  u64 term count T
//       68    8  u64 term bytes B
//       76    B  the terms, concatenated in vocabulary (sorted) order
//               T  u32 end offset of each term in those bytes
//               T  f64 idf of each term
//               8  u64 posting count P
//         (T+1)*8  u64 posting offsets
//             P*4  u32 entries
//             P*4  f32 weights
//               4  u32 CRC-32 (zlib) of every byte before it
//
// Version 2 (an approximate index). "pad": zero bytes up to the next multiple of 8, so that
// every array starts 8-byte aligned in the file, and in its page-aligned mapping.
//        0   76  the fields of version 1's header, version 2
//       76    4  u32 bytes per term id of the rows W: 2 or 4
//       80    B  the terms; pad
//               T  u32 end offset of each term; pad
//               T  f64 idf of each term
//               8  u64 row entry count R
//         (N+1)*8  u64 row offsets
//             R*W  term ids; pad
//             R*4  f32 weights; pad
//               8  u64 3-gram count T3
//               8  u64 3-gram bytes B3
//               8  u64 documents the 3-gram model was fitted on (= N)
//              B3  the 3-grams, in vocabulary order; pad
//              T3  u32 end offset of each 3-gram; pad
//              T3  f64 idf of each 3-gram
//               8  u64 3-gram posting count P3
//        (T3+1)*8  u64 posting offsets
//            P3*4  u32 entries; pad
//            P3*4  f32 weights; pad
//             N*8  u64 every name's hash (TrigramCandidates::nameHash), ascending
//             N*4  u32 the entry of each hash; pad
//               4  u32 CRC-32 (zlib) of every byte before it
constexpr std::string_view kMagic = "LSSPARSE";
constexpr std::size_t kHeaderBytes = 76;
constexpr std::size_t kApproximateHeaderBytes = 80;
constexpr std::size_t kChecksumBytes = 4;
constexpr std::uint64_t kAlignment = 8;

std::uint64_t padding(std::uint64_t at) noexcept { return (kAlignment - at % kAlignment) % kAlignment; }

// ----- writing -------------------------------------------------------------------------------

// Numbers are written little-endian by ChecksummedWriter::scalar / array.
using Writer = ChecksummedWriter;

void pad(Writer& out) {
    static constexpr char kZeros[kAlignment] = {};
    out.bytes(kZeros, static_cast<std::size_t>(padding(out.written())));
}

// A model's vocabulary as it is written: the terms' bytes, their end offsets, their idf.
struct VocabularyParts {
    std::string bytes;
    std::vector<std::uint32_t> ends;
    std::vector<double> idf;
};

VocabularyParts vocabularyOf(const TfidfVectorizer& model) {
    VocabularyParts parts;
    parts.ends.reserve(model.vocabularySize());
    for (std::uint32_t t = 0; t < model.vocabularySize(); ++t) {
        parts.bytes.append(model.term(t));
        parts.ends.push_back(static_cast<std::uint32_t>(parts.bytes.size()));
    }
    parts.idf.assign(model.idfs().begin(), model.idfs().end());
    return parts;
}

std::uint8_t flag(bool value) { return value ? 1 : 0; }

void writeHeader(Writer& out, std::uint32_t version, std::uint64_t fileBytes, const SparseIndex& index,
                 std::uint64_t termBytes) {
    const auto& model = index.vectorizer();
    const auto& settings = model.settings();
    out.bytes(kMagic.data(), kMagic.size());
    out.scalar(version);
    out.scalar(fileBytes);
    out.scalar(std::uint8_t{settings.analyzer == Analyzer::Char ? std::uint8_t{0} : std::uint8_t{1}});
    out.scalar(flag(settings.lowercase));
    out.scalar(flag(settings.englishStopWords));
    out.scalar(static_cast<std::uint8_t>(settings.norm == Norm::None ? 0 : settings.norm == Norm::L1 ? 1 : 2));
    out.scalar(flag(settings.useIdf));
    out.scalar(flag(settings.smoothIdf));
    out.scalar(flag(settings.sublinearTf));
    out.scalar(std::uint8_t{0});
    out.scalar(std::uint32_t{settings.minN});
    out.scalar(std::uint32_t{settings.maxN});
    out.scalar(index.fingerprint().names);
    out.scalar(index.fingerprint().hash);
    out.scalar(std::uint64_t{model.documentCount()});
    out.scalar(std::uint64_t{model.vocabularySize()});
    out.scalar(termBytes);
}

void saveExact(const SparseIndex& index, const std::filesystem::path& file) {
    const auto vocabulary = vocabularyOf(index.vectorizer());
    const auto& postings = index.postings();
    const std::uint64_t terms = vocabulary.ends.size();
    const std::uint64_t postingCount = postings.documents.size();
    const std::uint64_t fileBytes = kHeaderBytes + vocabulary.bytes.size() + terms * (4 + 8) + 8 + (terms + 1) * 8 +
                                    postingCount * (4 + 4) + kChecksumBytes;

    AtomicFileWriter output(file);
    Writer out(output.stream());
    writeHeader(out, kSparseIndexFormatVersion, fileBytes, index, vocabulary.bytes.size());
    out.bytes(vocabulary.bytes.data(), vocabulary.bytes.size());
    out.array(vocabulary.ends);
    out.array(vocabulary.idf);
    out.scalar(postingCount);
    out.array(postings.offsets);
    out.array(postings.documents);
    out.array(postings.weights);
    out.scalar(out.checksum());
    if (out.written() != fileBytes) throw Error(file.string() + ": internal error: sparse index size mismatch");
    output.commit();
}

// The size of version 2's sections, counted as they are written.
class LayoutSize {
public:
    void add(std::uint64_t bytes) noexcept { bytes_ += bytes; }
    void pad() noexcept { bytes_ += padding(bytes_); }
    std::uint64_t bytes() const noexcept { return bytes_; }

private:
    std::uint64_t bytes_ = 0;
};

void saveApproximate(const SparseIndex& index, const std::filesystem::path& file) {
    const auto vocabulary = vocabularyOf(index.vectorizer());
    const TrigramCandidates& trigrams = index.trigrams();
    const auto trigramVocabulary = vocabularyOf(trigrams.vectorizer());
    const SparseColumnsView& trigramPostings = trigrams.postings();
    const std::uint32_t width = std::holds_alternative<SparseRowsView<std::uint16_t>>(index.rows()) ? 2 : 4;
    const auto [rowOffsets, rowEntries] = std::visit(
        [](const auto& rows) {
            return std::pair<std::uint64_t, std::uint64_t>(rows.offsets.size(), rows.terms.size());
        },
        index.rows());

    LayoutSize size;
    size.add(kApproximateHeaderBytes);
    size.add(vocabulary.bytes.size());
    size.pad();
    size.add(vocabulary.ends.size() * 4);
    size.pad();
    size.add(vocabulary.idf.size() * 8 + 8 + rowOffsets * 8);
    size.add(rowEntries * width);
    size.pad();
    size.add(rowEntries * 4);
    size.pad();
    size.add(3 * 8 + trigramVocabulary.bytes.size());
    size.pad();
    size.add(trigramVocabulary.ends.size() * 4);
    size.pad();
    size.add(trigramVocabulary.idf.size() * 8 + 8 + trigramPostings.offsets.size() * 8 +
             trigramPostings.documents.size() * 4);
    size.pad();
    size.add(trigramPostings.weights.size() * 4);
    size.pad();
    size.add(trigrams.nameHashes().size() * 8 + trigrams.hashedEntries().size() * 4);
    size.pad();
    size.add(kChecksumBytes);
    const std::uint64_t fileBytes = size.bytes();

    AtomicFileWriter output(file);
    Writer out(output.stream());
    writeHeader(out, kApproximateSparseIndexFormatVersion, fileBytes, index, vocabulary.bytes.size());
    out.scalar(width);
    out.bytes(vocabulary.bytes.data(), vocabulary.bytes.size());
    pad(out);
    out.array(vocabulary.ends);
    pad(out);
    out.array(vocabulary.idf);
    out.scalar(rowEntries);
    std::visit(
        [&](const auto& rows) {
            out.array(rows.offsets);
            out.array(rows.terms);
            pad(out);
            out.array(rows.weights);
            pad(out);
        },
        index.rows());
    out.scalar(std::uint64_t{trigramVocabulary.ends.size()});
    out.scalar(std::uint64_t{trigramVocabulary.bytes.size()});
    out.scalar(std::uint64_t{trigrams.vectorizer().documentCount()});
    out.bytes(trigramVocabulary.bytes.data(), trigramVocabulary.bytes.size());
    pad(out);
    out.array(trigramVocabulary.ends);
    pad(out);
    out.array(trigramVocabulary.idf);
    out.scalar(std::uint64_t{trigramPostings.documents.size()});
    out.array(trigramPostings.offsets);
    out.array(trigramPostings.documents);
    pad(out);
    out.array(trigramPostings.weights);
    pad(out);
    out.array(trigrams.nameHashes());
    out.array(trigrams.hashedEntries());
    pad(out);
    out.scalar(out.checksum());
    if (out.written() != fileBytes) throw Error(file.string() + ": internal error: sparse index size mismatch");
    output.commit();
}

// ----- reading -------------------------------------------------------------------------------

// What the loaded arrays of an approximate index live in: the mapped file, and copies of the
// arrays that could not be used in place (a big-endian machine).
struct LoadedArrays {
    std::shared_ptr<const MappedFile> file;
    std::vector<std::shared_ptr<const void>> copies;
};

class Reader {
public:
    Reader(std::string_view data, const std::string& file) : data_(data), file_(file) {}

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, 0, message); }

    void need(std::uint64_t size, const char* what) const {
        if (size > data_.size() - at_)
            fail("corrupt sparse index: " + std::string(what) + " (" + std::to_string(size) +
                 " bytes) runs past the end of the file at byte " + std::to_string(at_));
    }
    template <typename T>
    T scalar(const char* what) {
        need(sizeof(T), what);
        unsigned char raw[sizeof(T)];
        std::memcpy(raw, data_.data() + at_, sizeof(T));
        if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
        at_ += sizeof(T);
        T value;
        std::memcpy(&value, raw, sizeof(T));
        return value;
    }
    // Checked before allocating or viewing, so that a damaged count cannot ask for terabytes.
    template <typename T>
    void needValues(std::uint64_t count, const char* what) const {
        if (count > (data_.size() - at_) / sizeof(T))
            fail("corrupt sparse index: " + std::string(what) + " (" + std::to_string(count) +
                 " values) run past the end of the file at byte " + std::to_string(at_));
    }
    template <typename T>
    std::vector<T> array(std::uint64_t count, const char* what) {
        needValues<T>(count, what);
        std::vector<T> values(static_cast<std::size_t>(count));
        if constexpr (std::endian::native == std::endian::little) {
            if (!values.empty()) std::memcpy(values.data(), data_.data() + at_, values.size() * sizeof(T));
            at_ += values.size() * sizeof(T);
        } else {
            for (auto& value : values) value = scalar<T>(what);
        }
        return values;
    }
    // The values in place when the data's byte order and alignment allow, else a copy kept in
    // `arrays`.
    template <typename T>
    std::span<const T> view(std::uint64_t count, const char* what, LoadedArrays& arrays) {
        needValues<T>(count, what);
        const char* at = data_.data() + at_;
        if (std::endian::native == std::endian::little && reinterpret_cast<std::uintptr_t>(at) % alignof(T) == 0) {
            at_ += static_cast<std::size_t>(count) * sizeof(T);
            return {reinterpret_cast<const T*>(at), static_cast<std::size_t>(count)};
        }
        auto copy = std::make_shared<const std::vector<T>>(array<T>(count, what));
        const std::span<const T> values(*copy);
        arrays.copies.push_back(std::move(copy));
        return values;
    }
    std::string_view bytes(std::uint64_t size, const char* what) {
        need(size, what);
        const auto view = data_.substr(at_, static_cast<std::size_t>(size));
        at_ += static_cast<std::size_t>(size);
        return view;
    }
    // Version 2: skips the zero bytes up to the next multiple of 8.
    void align(const char* what) {
        const std::string_view skipped = bytes(padding(at_), what);
        if (skipped.find_first_not_of('\0') != std::string_view::npos)
            fail("corrupt sparse index: non-zero padding after the " + std::string(what));
    }
    std::size_t position() const noexcept { return at_; }

private:
    std::string_view data_;
    const std::string& file_;
    std::size_t at_ = 0;
};

// Up to `limit` bytes from the start of the file.
std::string readFileStart(const std::filesystem::path& file, std::size_t limit) {
    InputFileStream in(file, "the sparse index file", std::ios::binary | std::ios::ate);
    const std::streamoff end = in ? static_cast<std::streamoff>(in.tellg()) : -1;
    if (!in || end < 0 || std::filesystem::is_directory(file))
        throw ParseError(file.string(), 0, "cannot open the sparse index file");
    const auto size = static_cast<std::size_t>(end);
    std::string data(std::min(size, limit), '\0');
    in.seekg(0);
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    if (!in) throw ParseError(file.string(), 0, "cannot read the sparse index file");
    return data;
}

struct Header {
    std::uint32_t version = 0;
    std::uint64_t fileBytes = 0;
    TfidfSettings settings;
    DictionaryFingerprint fingerprint;
    std::uint64_t documents = 0;
    std::uint64_t terms = 0;
    std::uint64_t termBytes = 0;
    std::uint32_t rowTermBytes = 0;  // version 2
};

// Reads and checks the fixed-size header; `data` may be only its first kApproximateHeaderBytes.
Header readHeader(Reader& reader, std::uint64_t actualBytes) {
    if (actualBytes == 0) reader.fail("empty file: not a Linkscope sparse index");
    if (actualBytes < kMagic.size() ||
        std::memcmp(reader.bytes(kMagic.size(), "magic").data(), kMagic.data(), kMagic.size()) != 0)
        reader.fail("not a Linkscope sparse index (wrong magic bytes; expected \"LSSPARSE\")");
    if (actualBytes < kHeaderBytes)
        reader.fail("truncated sparse index: " + std::to_string(actualBytes) + " bytes, shorter than its " +
                    std::to_string(kHeaderBytes) + "-byte header");
    Header header;
    header.version = reader.scalar<std::uint32_t>("format version");
    if (header.version != kSparseIndexFormatVersion && header.version != kApproximateSparseIndexFormatVersion)
        reader.fail("unsupported sparse index format version " + std::to_string(header.version) +
                    " (this build reads versions " + std::to_string(kSparseIndexFormatVersion) + " and " +
                    std::to_string(kApproximateSparseIndexFormatVersion) + "); rebuild the index");
    header.fileBytes = reader.scalar<std::uint64_t>("file size");
    const auto analyzer = reader.scalar<std::uint8_t>("settings");
    const auto lowercase = reader.scalar<std::uint8_t>("settings");
    const auto stopWords = reader.scalar<std::uint8_t>("settings");
    const auto norm = reader.scalar<std::uint8_t>("settings");
    const auto useIdf = reader.scalar<std::uint8_t>("settings");
    const auto smoothIdf = reader.scalar<std::uint8_t>("settings");
    const auto sublinearTf = reader.scalar<std::uint8_t>("settings");
    const auto zero = reader.scalar<std::uint8_t>("settings");
    header.settings.minN = reader.scalar<std::uint32_t>("settings");
    header.settings.maxN = reader.scalar<std::uint32_t>("settings");
    if (analyzer > 1 || lowercase > 1 || stopWords > 1 || norm > 2 || useIdf > 1 || smoothIdf > 1 || sublinearTf > 1 ||
        zero != 0)
        reader.fail("corrupt sparse index: invalid settings bytes");
    header.settings.analyzer = analyzer == 0 ? Analyzer::Char : Analyzer::Word;
    header.settings.lowercase = lowercase != 0;
    header.settings.englishStopWords = stopWords != 0;
    header.settings.norm = norm == 0 ? Norm::None : norm == 1 ? Norm::L1 : Norm::L2;
    header.settings.useIdf = useIdf != 0;
    header.settings.smoothIdf = smoothIdf != 0;
    header.settings.sublinearTf = sublinearTf != 0;
    try {
        header.settings.validate();
    } catch (const Error& e) {
        reader.fail(std::string("corrupt sparse index: ") + e.what());
    }
    header.fingerprint.names = reader.scalar<std::uint64_t>("dictionary fingerprint");
    header.fingerprint.hash = reader.scalar<std::uint64_t>("dictionary fingerprint");
    header.documents = reader.scalar<std::uint64_t>("document count");
    header.terms = reader.scalar<std::uint64_t>("term count");
    header.termBytes = reader.scalar<std::uint64_t>("term bytes");
    if (header.version == kApproximateSparseIndexFormatVersion) {
        if (actualBytes < kApproximateHeaderBytes)
            reader.fail("truncated sparse index: " + std::to_string(actualBytes) + " bytes, shorter than its " +
                        std::to_string(kApproximateHeaderBytes) + "-byte header");
        header.rowTermBytes = reader.scalar<std::uint32_t>("row term width");
        if (header.rowTermBytes != 2 && header.rowTermBytes != 4)
            reader.fail("corrupt sparse index: rows with term ids of " + std::to_string(header.rowTermBytes) +
                        " bytes (2 or 4 expected)");
    }
    return header;
}

// A model's vocabulary (version 1 unpadded, version 2 padded), restored with `settings`.
TfidfVectorizer readModel(Reader& reader, bool padded, const TfidfSettings& settings, std::uint64_t termCount,
                          std::uint64_t termByteCount, std::uint64_t documents, const char* what) {
    if (termCount >= 0xFFFFFFFFull)
        reader.fail("corrupt sparse index: " + std::to_string(termCount) + " " + std::string(what));
    const std::string_view termBytes = reader.bytes(termByteCount, what);
    if (padded) reader.align(what);
    const auto termEnds = reader.array<std::uint32_t>(termCount, "term offsets");
    if (padded) reader.align("term offsets");
    auto idf = reader.array<double>(termCount, "idf values");
    std::vector<std::string_view> terms;
    terms.reserve(termEnds.size());
    std::uint32_t begin = 0;
    for (const std::uint32_t end : termEnds) {
        if (end < begin || end > termBytes.size()) reader.fail("corrupt sparse index: term offsets out of order");
        terms.push_back(termBytes.substr(begin, end - begin));
        begin = end;
    }
    if (begin != termBytes.size()) reader.fail("corrupt sparse index: term bytes left over");
    return TfidfVectorizer::restore(settings, terms, std::move(idf), documents);
}

SparseIndex readExactBody(Reader& reader, const Header& header, std::size_t bodyEnd,
                          const SparseIndexOptions& options) {
    auto model = readModel(reader, false, header.settings, header.terms, header.termBytes, header.documents, "terms");
    const auto postingCount = reader.scalar<std::uint64_t>("posting count");
    SparseIndex::Postings postings;
    postings.offsets = reader.array<std::uint64_t>(header.terms + 1, "posting offsets");
    postings.documents = reader.array<std::uint32_t>(postingCount, "posting entries");
    postings.weights = reader.array<float>(postingCount, "posting weights");
    if (reader.position() != bodyEnd) reader.fail("corrupt sparse index: the sections do not add up to the file size");
    return SparseIndex::fromParts(std::move(model), std::move(postings), header.fingerprint, options);
}

template <class Term>
SparseRowsView<Term> readRows(Reader& reader, std::span<const std::uint64_t> offsets, std::uint64_t entries,
                              LoadedArrays& arrays) {
    SparseRowsView<Term> rows;
    rows.offsets = offsets;
    rows.terms = reader.view<Term>(entries, "row term ids", arrays);
    reader.align("row term ids");
    rows.weights = reader.view<float>(entries, "row weights", arrays);
    reader.align("row weights");
    return rows;
}

SparseIndex readApproximateBody(Reader& reader, const Header& header, std::size_t bodyEnd,
                                std::shared_ptr<const MappedFile> file, const SparseIndexOptions& options) {
    const std::uint64_t names = header.fingerprint.names;
    if (names >= 0xFFFFFFFFull) reader.fail("corrupt sparse index: name count " + std::to_string(names));
    auto arrays = std::make_shared<LoadedArrays>();
    arrays->file = std::move(file);
    auto model = readModel(reader, true, header.settings, header.terms, header.termBytes, header.documents, "terms");
    const auto rowEntries = reader.scalar<std::uint64_t>("row entry count");
    const auto rowOffsets = reader.view<std::uint64_t>(names + 1, "row offsets", *arrays);
    const CompactSparseRowsView rows =
        header.rowTermBytes == 2
            ? CompactSparseRowsView(readRows<std::uint16_t>(reader, rowOffsets, rowEntries, *arrays))
            : CompactSparseRowsView(readRows<std::uint32_t>(reader, rowOffsets, rowEntries, *arrays));

    const auto trigramCount = reader.scalar<std::uint64_t>("3-gram count");
    const auto trigramBytes = reader.scalar<std::uint64_t>("3-gram bytes");
    const auto trigramDocuments = reader.scalar<std::uint64_t>("3-gram document count");
    auto trigramModel = readModel(reader, true, TrigramCandidates::modelSettings(), trigramCount, trigramBytes,
                                  trigramDocuments, "3-grams");
    const auto postingCount = reader.scalar<std::uint64_t>("3-gram posting count");
    SparseColumnsView postings;
    postings.offsets = reader.view<std::uint64_t>(trigramCount + 1, "3-gram posting offsets", *arrays);
    postings.documents = reader.view<std::uint32_t>(postingCount, "3-gram posting entries", *arrays);
    reader.align("3-gram posting entries");
    postings.weights = reader.view<float>(postingCount, "3-gram posting weights", *arrays);
    reader.align("3-gram posting weights");
    const auto nameHashes = reader.view<std::uint64_t>(names, "name hashes", *arrays);
    const auto hashedEntries = reader.view<std::uint32_t>(names, "hashed entries", *arrays);
    reader.align("hashed entries");
    if (reader.position() != bodyEnd) reader.fail("corrupt sparse index: the sections do not add up to the file size");

    auto trigrams = TrigramCandidates::fromParts(std::move(trigramModel), postings, nameHashes, hashedEntries, names,
                                                 arrays, options.approximate);
    return SparseIndex::fromApproximateParts(std::move(model), rows, std::move(trigrams), header.fingerprint,
                                             std::move(arrays));
}

}  // namespace

void saveSparseIndex(const SparseIndex& index, const std::filesystem::path& file) {
    if (index.approximate())
        saveApproximate(index, file);
    else
        saveExact(index, file);
}

SparseIndexFileInfo readSparseIndexInfo(const std::filesystem::path& file) {
    const std::string head = readFileStart(file, kApproximateHeaderBytes);
    const std::string name = file.string();
    Reader reader(head, name);
    const Header header = readHeader(reader, head.size());
    return {header.version, header.settings,  header.fingerprint,
            header.terms,   header.fileBytes, header.version == kApproximateSparseIndexFormatVersion};
}

SparseIndex loadSparseIndex(const std::filesystem::path& file, const NameDictionary& dictionary,
                            const TfidfSettings& settings, const SparseIndexOptions& options) {
    return loadSparseIndex(file, fingerprintOf(dictionary), settings, options);
}

SparseIndex loadSparseIndex(const std::filesystem::path& file, const DictionaryFingerprint& expected,
                            const TfidfSettings& settings, const SparseIndexOptions& options) {
    const std::string name = file.string();
    // The header first, so that a large file of another kind is refused without mapping it.
    // Then the size it announces against the file's, so that no more is read than an intact
    // index of that header has.
    {
        const std::string head = readFileStart(file, kApproximateHeaderBytes);
        Reader reader(head, name);
        const Header announced = readHeader(reader, head.size());
        std::error_code ec;
        const auto actual = std::filesystem::file_size(file, ec);
        if (ec) reader.fail("cannot read the sparse index file's size: " + ec.message());
        if (announced.fileBytes > actual)
            reader.fail("truncated sparse index: " + std::to_string(actual) + " bytes of the " +
                        std::to_string(announced.fileBytes) + " its header announces");
        if (announced.fileBytes < actual)
            reader.fail("corrupt sparse index: " + std::to_string(actual - announced.fileBytes) +
                        " unexpected bytes after the end its header announces");
    }
    // Read from the mapping from here on: the file may have been replaced since, so everything
    // is checked again on what is mapped.
    auto mapping = std::make_shared<const MappedFile>(file, "the sparse index file");
    const std::string_view data = mapping->bytes();
    Reader reader(data, name);
    const Header header = readHeader(reader, data.size());

    // Whole-file checks before anything in the body is trusted.
    if (header.fileBytes > data.size())
        reader.fail("truncated sparse index: " + std::to_string(data.size()) + " bytes of the " +
                    std::to_string(header.fileBytes) + " its header announces");
    if (header.fileBytes < data.size())
        reader.fail("corrupt sparse index: " + std::to_string(data.size() - header.fileBytes) +
                    " unexpected bytes after the end its header announces");
    const std::size_t bodyEnd = data.size() - kChecksumBytes;
    const auto stored = readLittleEndian<std::uint32_t>(data.data() + bodyEnd);
    const auto computed = static_cast<std::uint32_t>(
        crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(data.data()), bodyEnd));
    if (stored != computed) reader.fail("damaged sparse index: checksum mismatch (the file was modified or corrupted)");

    // The index is intact: is it the one the caller asked for?
    if (!(header.settings == settings))
        throw Error(name + ": the index was built with other TF-IDF settings (" + header.settings.describe() +
                    ") than the ones requested (" + settings.describe() + "); rebuild it");
    if (!(header.fingerprint == expected))
        throw Error(name + ": the index was built for a different dictionary (" + header.fingerprint.describe() +
                    ") than the one given (" + expected.describe() + "); rebuild it");

    try {
        if (header.version == kSparseIndexFormatVersion) return readExactBody(reader, header, bodyEnd, options);
        return readApproximateBody(reader, header, bodyEnd, std::move(mapping), options);
    } catch (const ParseError&) {
        throw;
    } catch (const Error& e) {
        reader.fail(std::string("corrupt sparse index: ") + e.what());
    }
}

}  // namespace linkscope::retrieval
