#include "retrieval/sparse_index_io.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::retrieval {
namespace {

// Version 1 layout. Scalars and arrays are little-endian; there is no padding.
//   offset size
//        0    8  magic "LSSPARSE"
//        8    4  u32 format version
//       12    8  u64 total file size in bytes, checksum included
//       20    8  u8 analyzer (0 char, 1 word), u8 lowercase, u8 English stop words, u8 norm
//                (0 none, 1 l1, 2 l2), u8 use idf, u8 smooth idf, u8 sublinear tf, u8 zero
//       28    8  u32 min n, u32 max n
//       36   16  u64 dictionary names, u64 dictionary hash (DictionaryFingerprint)
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
constexpr std::string_view kMagic = "LSSPARSE";
constexpr std::size_t kHeaderBytes = 76;
constexpr std::size_t kChecksumBytes = 4;

// ----- writing -------------------------------------------------------------------------------

// Numbers are written little-endian by ChecksummedWriter::scalar / array.
using Writer = ChecksummedWriter;

// ----- reading -------------------------------------------------------------------------------

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
    template <typename T>
    std::vector<T> array(std::uint64_t count, const char* what) {
        // Checked before allocating, so that a damaged count cannot ask for terabytes.
        if (count > (data_.size() - at_) / sizeof(T))
            fail("corrupt sparse index: " + std::string(what) + " (" + std::to_string(count) +
                 " values) run past the end of the file at byte " + std::to_string(at_));
        std::vector<T> values(static_cast<std::size_t>(count));
        if constexpr (std::endian::native == std::endian::little) {
            if (!values.empty()) std::memcpy(values.data(), data_.data() + at_, values.size() * sizeof(T));
            at_ += values.size() * sizeof(T);
        } else {
            for (auto& value : values) value = scalar<T>(what);
        }
        return values;
    }
    std::string_view bytes(std::uint64_t size, const char* what) {
        need(size, what);
        const auto view = data_.substr(at_, static_cast<std::size_t>(size));
        at_ += static_cast<std::size_t>(size);
        return view;
    }
    std::size_t position() const noexcept { return at_; }

private:
    std::string_view data_;
    const std::string& file_;
    std::size_t at_ = 0;
};

// Up to `limit` bytes from the start of the file (all of it by default).
std::string readFileStart(const std::filesystem::path& file, std::size_t limit = std::string::npos) {
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

std::uint8_t flag(bool value) { return value ? 1 : 0; }

struct Header {
    std::uint32_t version = 0;
    std::uint64_t fileBytes = 0;
    TfidfSettings settings;
    DictionaryFingerprint fingerprint;
    std::uint64_t documents = 0;
    std::uint64_t terms = 0;
    std::uint64_t termBytes = 0;
};

// Reads and checks the fixed-size header; `data` may be only its first kHeaderBytes.
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
    if (header.version != kSparseIndexFormatVersion)
        reader.fail("unsupported sparse index format version " + std::to_string(header.version) +
                    " (this build reads version " + std::to_string(kSparseIndexFormatVersion) + "); rebuild the index");
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
    return header;
}

}  // namespace

void saveSparseIndex(const SparseIndex& index, const std::filesystem::path& file) {
    if (index.approximate())
        throw Error(file.string() + ": an index of " + std::to_string(index.size()) +
                    " names is searched approximately (it holds rows and a 3-gram stage, not postings) and is not "
                    "saved; it is built again where it is used");
    const auto& model = index.vectorizer();
    const auto& settings = model.settings();
    const auto& postings = index.postings();

    std::string termBytes;
    std::vector<std::uint32_t> termEnds;
    termEnds.reserve(model.vocabularySize());
    for (std::uint32_t t = 0; t < model.vocabularySize(); ++t) {
        termBytes.append(model.term(t));
        termEnds.push_back(static_cast<std::uint32_t>(termBytes.size()));
    }
    const std::vector<double> idf(model.idfs().begin(), model.idfs().end());
    const std::uint64_t terms = termEnds.size();
    const std::uint64_t postingCount = postings.documents.size();
    const std::uint64_t fileBytes = kHeaderBytes + termBytes.size() + terms * (4 + 8) + 8 + (terms + 1) * 8 +
                                    postingCount * (4 + 4) + kChecksumBytes;

    AtomicFileWriter output(file);
    Writer out(output.stream());
    out.bytes(kMagic.data(), kMagic.size());
    out.scalar(kSparseIndexFormatVersion);
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
    out.scalar(terms);
    out.scalar(std::uint64_t{termBytes.size()});
    out.bytes(termBytes.data(), termBytes.size());
    out.array(termEnds);
    out.array(idf);
    out.scalar(postingCount);
    out.array(postings.offsets);
    out.array(postings.documents);
    out.array(postings.weights);
    out.scalar(out.checksum());
    if (out.written() != fileBytes) throw Error(file.string() + ": internal error: sparse index size mismatch");
    output.commit();
}

SparseIndexFileInfo readSparseIndexInfo(const std::filesystem::path& file) {
    const std::string head = readFileStart(file, kHeaderBytes);
    const std::string name = file.string();
    Reader reader(head, name);
    const Header header = readHeader(reader, head.size());
    return {header.version, header.settings, header.fingerprint, header.terms, header.fileBytes};
}

SparseIndex loadSparseIndex(const std::filesystem::path& file, const NameDictionary& dictionary,
                            const TfidfSettings& settings, const SparseIndexOptions& options) {
    return loadSparseIndex(file, fingerprintOf(dictionary), settings, options);
}

SparseIndex loadSparseIndex(const std::filesystem::path& file, const DictionaryFingerprint& expected,
                            const TfidfSettings& settings, const SparseIndexOptions& options) {
    const std::string name = file.string();
    // The header first, so that a large file of another kind is refused without reading it all.
    // Then the size it announces against the file's, so that no more is read (and held) than an
    // intact index of that header has.
    {
        const std::string head = readFileStart(file, kHeaderBytes);
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
    const std::string data = readFileStart(file);
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
    std::uint32_t stored = 0;
    for (std::size_t i = 0; i < kChecksumBytes; ++i)
        stored |= static_cast<std::uint32_t>(static_cast<unsigned char>(data[bodyEnd + i])) << (8 * i);
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

    if (header.terms >= 0xFFFFFFFFull) reader.fail("corrupt sparse index: term count " + std::to_string(header.terms));
    const std::string_view termBytes = reader.bytes(header.termBytes, "terms");
    const auto termEnds = reader.array<std::uint32_t>(header.terms, "term offsets");
    auto idf = reader.array<double>(header.terms, "idf values");
    const auto postingCount = reader.scalar<std::uint64_t>("posting count");
    SparseIndex::Postings postings;
    postings.offsets = reader.array<std::uint64_t>(header.terms + 1, "posting offsets");
    postings.documents = reader.array<std::uint32_t>(postingCount, "posting entries");
    postings.weights = reader.array<float>(postingCount, "posting weights");
    if (reader.position() != bodyEnd) reader.fail("corrupt sparse index: the sections do not add up to the file size");

    std::vector<std::string_view> terms;
    terms.reserve(termEnds.size());
    std::uint32_t begin = 0;
    for (const std::uint32_t end : termEnds) {
        if (end < begin || end > termBytes.size()) reader.fail("corrupt sparse index: term offsets out of order");
        terms.push_back(termBytes.substr(begin, end - begin));
        begin = end;
    }
    if (begin != termBytes.size()) reader.fail("corrupt sparse index: term bytes left over");
    try {
        auto model = TfidfVectorizer::restore(header.settings, terms, std::move(idf), header.documents);
        return SparseIndex::fromParts(std::move(model), std::move(postings), header.fingerprint, options);
    } catch (const ParseError&) {
        throw;
    } catch (const Error& e) {
        reader.fail(std::string("corrupt sparse index: ") + e.what());
    }
}

}  // namespace linkscope::retrieval
