// Saving and loading a KnnDatastore: a checksummed binary file whose every count is checked
// before it is trusted, and whose content is checked as a freshly built store would be.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <type_traits>
#include <utility>

#include "retrieval/knn_datastore.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::retrieval {

// ----- file format ---------------------------------------------------------------------------
//
// Version 1. Scalars and arrays little-endian, no padding.
//   offset size
//        0    8  magic "LSKNNDS1"
//        8    4  u32 format version
//       12    8  u64 total file size in bytes, checksum included
//       20    8  u64 dimension D
//       28    8  u64 fingerprint bytes F
//       36    F  encoder fingerprint
//             8  u64 next key id
//             8  u64 entity count E
//             8  u64 entity text bytes B
//             B  entity ids, concatenated in index order
//           E*4  u32 end offset of each entity id in that text
//             8  u64 key count N
//             8  u64 source text bytes S
//           N*8  u64 key ids            (storage order)
//           N*4  u32 entity indexes
//           N*1  u8 origins (0 training, 1 accepted, 2 corrected)
//           N*8  u64 end offset of each key's source in the source text
//             S  source texts, concatenated
//       N*D*4  f32 unit key vectors, row-major
//             4  u32 CRC-32 (zlib) of every byte before it
// The size and the checksum are checked before any count in the body is trusted, and every
// count is checked against the bytes left before anything is allocated for it.
namespace {

constexpr std::string_view kMagic = "LSKNNDS1";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeaderBytes = 36;
constexpr std::size_t kChecksumBytes = 4;
// Far above any encoder's output; a larger value is damage, and bounds the row arithmetic.
constexpr std::uint64_t kMaxDimension = 1 << 20;
// A stored key deviates from unit length by float rounding only (~1e-7 relative).
constexpr double kUnitTolerance = 1e-3;

using Writer = ChecksummedWriter;  // little-endian scalars and arrays

// Reads the body of a file whose size and checksum were verified, never past `left` bytes.
class Reader {
public:
    Reader(std::istream& in, std::uint64_t left, const std::string& file) : in_(in), left_(left), file_(file) {}

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, 0, message); }
    std::uint64_t left() const noexcept { return left_; }

    template <typename T>
    T scalar(const char* what) {
        T value;
        read(&value, 1, what);
        return value;
    }
    template <typename T>
    std::vector<T> array(std::uint64_t count, const char* what) {
        checkFits(count, sizeof(T), what);  // before allocating: a damaged count asks for nothing
        std::vector<T> values(static_cast<std::size_t>(count));
        read(values.data(), values.size(), what);
        return values;
    }
    std::string text(std::uint64_t bytes, const char* what) {
        checkFits(bytes, 1, what);
        std::string value(static_cast<std::size_t>(bytes), '\0');
        readRaw(value.data(), value.size(), what);
        return value;
    }
    void checkFits(std::uint64_t count, std::uint64_t itemBytes, const char* what) const {
        if (count > left_ / itemBytes)
            fail("corrupt kNN datastore: " + std::string(what) + " (" + std::to_string(count) + " x " +
                 std::to_string(itemBytes) + " bytes) run past the end of the file, " + std::to_string(left_) +
                 " bytes before its checksum");
    }

private:
    template <typename T>
    void read(T* values, std::size_t count, const char* what) {
        static_assert(std::is_arithmetic_v<T>);
        checkFits(count, sizeof(T), what);
        readRaw(values, count * sizeof(T), what);
        if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1)
            for (std::size_t i = 0; i < count; ++i) {
                auto* raw = reinterpret_cast<unsigned char*>(values + i);
                std::reverse(raw, raw + sizeof(T));
            }
    }
    void readRaw(void* data, std::size_t bytes, const char* what) {
        if (bytes == 0) return;
        if (!in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes)))
            fail(std::string("cannot read the kNN datastore file (") + what + ")");
        left_ -= bytes;
    }

    std::istream& in_;
    std::uint64_t left_;
    const std::string& file_;
};

// Splits concatenated text at its end offsets; fails unless the offsets ascend and end at its end.
template <typename Offset>
std::vector<std::string> splitAtEnds(const std::string& text, const std::vector<Offset>& ends, const Reader& reader,
                                     const char* what) {
    std::vector<std::string> parts;
    parts.reserve(ends.size());
    std::uint64_t begin = 0;
    for (const Offset end : ends) {
        if (end < begin || end > text.size())
            reader.fail("corrupt kNN datastore: " + std::string(what) + " offsets out of order");
        parts.emplace_back(text, static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
        begin = end;
    }
    if (begin != text.size()) reader.fail("corrupt kNN datastore: " + std::string(what) + " text left over");
    return parts;
}

}  // namespace

void KnnDatastore::save(const std::filesystem::path& file) const {
    std::string entityText;
    std::vector<std::uint32_t> entityEnds;
    entityEnds.reserve(entities_.size());
    for (const auto& entity : entities_) {
        entityText += entity;
        if (entityText.size() > std::numeric_limits<std::uint32_t>::max())
            throw Error("kNN datastore: cannot save " + file.string() + ": over 4 GiB of entity ids");
        entityEnds.push_back(static_cast<std::uint32_t>(entityText.size()));
    }
    std::vector<std::uint64_t> sourceEnds;
    sourceEnds.reserve(keySources_.size());
    std::uint64_t sourceBytes = 0;
    for (const auto& source : keySources_) sourceEnds.push_back(sourceBytes += source.size());
    std::vector<std::uint8_t> origins(keyOrigins_.size());
    std::transform(keyOrigins_.begin(), keyOrigins_.end(), origins.begin(),
                   [](KeyOrigin origin) { return static_cast<std::uint8_t>(origin); });

    const std::uint64_t keys = keyIds_.size();
    const std::uint64_t fileBytes = kFixedHeaderBytes + fingerprint_.size() + 8 + 8 + 8 + entityText.size() +
                                    entities_.size() * 4 + 8 + 8 + keys * (8 + 4 + 1 + 8) + sourceBytes +
                                    vectors_.size() * 4 + kChecksumBytes;

    AtomicFileWriter output(file);
    Writer out(output.stream());
    out.text(kMagic);
    out.scalar(kVersion);
    out.scalar(fileBytes);
    out.scalar(std::uint64_t{dimension_});
    out.scalar(std::uint64_t{fingerprint_.size()});
    out.text(fingerprint_);
    out.scalar(nextKeyId_);
    out.scalar(std::uint64_t{entities_.size()});
    out.scalar(std::uint64_t{entityText.size()});
    out.text(entityText);
    out.array(std::span<const std::uint32_t>(entityEnds));
    out.scalar(keys);
    out.scalar(sourceBytes);
    out.array(std::span<const std::uint64_t>(keyIds_));
    out.array(std::span<const std::uint32_t>(keyEntities_));
    out.array(std::span<const std::uint8_t>(origins));
    out.array(std::span<const std::uint64_t>(sourceEnds));
    for (const auto& source : keySources_) out.text(source);
    out.array(std::span<const float>(vectors_));
    out.scalar(out.checksum());
    if (!out.good()) throw Error("kNN datastore: cannot write " + file.string());
    if (out.written() != fileBytes) throw Error(file.string() + ": internal error: kNN datastore size mismatch");
    output.commit();
}

KnnDatastore KnnDatastore::load(const std::filesystem::path& file, const std::string& expectedFingerprint) {
    const std::string name = file.string();
    const auto fail = [&name](const std::string& message) { return ParseError(name, 0, message); };
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) throw fail("cannot open the kNN datastore file: it is a folder");
    InputFileStream in(file, "the kNN datastore file", std::ios::binary | std::ios::ate);
    const auto end = static_cast<std::streamoff>(in.tellg());
    if (end < 0) throw fail("cannot read the kNN datastore file");
    const auto fileBytes = static_cast<std::uint64_t>(end);
    if (fileBytes == 0) throw fail("empty file: not a Linkscope kNN datastore");

    // The header: the magic, then the size and the checksum vouch for everything after it.
    char fixed[kFixedHeaderBytes];
    const auto headBytes = static_cast<std::size_t>(std::min<std::uint64_t>(fileBytes, kFixedHeaderBytes));
    in.seekg(0);
    if (!in.read(fixed, static_cast<std::streamsize>(headBytes))) throw fail("cannot read the kNN datastore file");
    const std::string_view head(fixed, std::min(headBytes, kMagic.size()));
    if (head != kMagic.substr(0, head.size()))
        throw fail("not a Linkscope kNN datastore (the file does not start with \"LSKNNDS1\")");
    if (fileBytes < kFixedHeaderBytes + kChecksumBytes)
        throw fail("truncated kNN datastore: the file ends inside its header (" + std::to_string(fileBytes) +
                   " bytes)");
    const auto version = readLittleEndian<std::uint32_t>(fixed + 8);
    if (version != kVersion)
        throw fail("kNN datastore format version " + std::to_string(version) + " is not supported (this build reads " +
                   std::to_string(kVersion) + ")");
    const auto recordedBytes = readLittleEndian<std::uint64_t>(fixed + 12);
    if (recordedBytes > fileBytes)
        throw fail("truncated kNN datastore: " + std::to_string(fileBytes) + " bytes of the " +
                   std::to_string(recordedBytes) + " its header announces");
    if (recordedBytes < fileBytes)
        throw fail("corrupt kNN datastore: " + std::to_string(fileBytes - recordedBytes) +
                   " unexpected bytes after the end its header announces");
    char storedChecksum[kChecksumBytes];
    in.seekg(static_cast<std::streamoff>(fileBytes - kChecksumBytes));
    if (!in.read(storedChecksum, kChecksumBytes)) throw fail("cannot read the kNN datastore file");
    if (streamChecksum(in, fileBytes - kChecksumBytes, name, "kNN datastore") !=
        readLittleEndian<std::uint32_t>(storedChecksum))
        throw fail(
            "damaged kNN datastore: the checksum does not match its content (the file was modified or corrupted)");

    // The body, every count checked against the bytes left before it is used.
    in.clear();
    in.seekg(static_cast<std::streamoff>(20));
    Reader reader(in, fileBytes - 20 - kChecksumBytes, name);
    const auto dimension = reader.scalar<std::uint64_t>("dimension");
    if (dimension == 0 || dimension > kMaxDimension)
        reader.fail("corrupt kNN datastore: dimension " + std::to_string(dimension));
    const auto fingerprintBytes = reader.scalar<std::uint64_t>("fingerprint size");
    std::string fingerprint = reader.text(fingerprintBytes, "fingerprint");
    // The file is intact: was it made by the encoder the caller uses?
    if (!expectedFingerprint.empty() && fingerprint != expectedFingerprint)
        throw Error(name + ": the kNN datastore was built by encoder \"" + fingerprint +
                    "\", the active encoder is \"" + expectedFingerprint +
                    "\": rebuild it (its keys must be re-encoded by the active encoder)");

    KnnDatastore store(static_cast<std::size_t>(dimension), std::move(fingerprint));
    store.nextKeyId_ = reader.scalar<std::uint64_t>("next key id");
    const auto entityCount = reader.scalar<std::uint64_t>("entity count");
    if (entityCount > std::numeric_limits<std::uint32_t>::max())
        reader.fail("corrupt kNN datastore: entity count " + std::to_string(entityCount));
    const auto entityBytes = reader.scalar<std::uint64_t>("entity text size");
    const std::string entityText = reader.text(entityBytes, "entity ids");
    const auto entityEnds = reader.array<std::uint32_t>(entityCount, "entity offsets");
    const auto keyCount = reader.scalar<std::uint64_t>("key count");
    const auto sourceBytes = reader.scalar<std::uint64_t>("source text size");
    reader.checkFits(keyCount, 8 + 4 + 1 + 8, "keys");
    store.keyIds_ = reader.array<std::uint64_t>(keyCount, "key ids");
    store.keyEntities_ = reader.array<std::uint32_t>(keyCount, "key entities");
    const auto origins = reader.array<std::uint8_t>(keyCount, "key origins");
    const auto sourceEnds = reader.array<std::uint64_t>(keyCount, "source offsets");
    const std::string sourceText = reader.text(sourceBytes, "sources");
    reader.checkFits(keyCount, dimension * 4, "key vectors");
    store.vectors_ = reader.array<float>(keyCount * dimension, "key vectors");
    if (reader.left() != 0)
        reader.fail("corrupt kNN datastore: " + std::to_string(reader.left()) +
                    " bytes between the key vectors and the checksum (the sections do not add up to the file size)");

    // The content, checked as thoroughly as a freshly built store would be.
    store.entities_ = splitAtEnds(entityText, entityEnds, reader, "entity");
    store.entityKeyCounts_.assign(store.entities_.size(), 0);
    store.entityIndex_.reserve(store.entities_.size());
    for (std::uint32_t index = 0; index < store.entities_.size(); ++index) {
        const std::string& entity = store.entities_[index];
        if (entity.empty()) reader.fail("corrupt kNN datastore: entity " + std::to_string(index) + " has an empty id");
        if (!store.entityIndex_.emplace(entity, index).second)
            reader.fail("corrupt kNN datastore: entity \"" + entity + "\" is listed twice");
    }
    store.keySources_ = splitAtEnds(sourceText, sourceEnds, reader, "source");
    store.keyOrigins_.reserve(origins.size());
    store.rowOfKey_.reserve(static_cast<std::size_t>(keyCount));
    for (std::size_t row = 0; row < store.keyIds_.size(); ++row) {
        const std::uint64_t id = store.keyIds_[row];
        const std::string where = "key " + std::to_string(id) + " (row " + std::to_string(row) + ")";
        if (id == 0 || id >= store.nextKeyId_)
            reader.fail("corrupt kNN datastore: " + where + " is not below the next key id " +
                        std::to_string(store.nextKeyId_));
        if (!store.rowOfKey_.emplace(id, row).second)
            reader.fail("corrupt kNN datastore: " + where + " is listed twice");
        if (store.keyEntities_[row] >= store.entities_.size())
            reader.fail("corrupt kNN datastore: " + where + " names entity " + std::to_string(store.keyEntities_[row]) +
                        " of " + std::to_string(store.entities_.size()));
        ++store.entityKeyCounts_[store.keyEntities_[row]];
        if (origins[row] > static_cast<std::uint8_t>(KeyOrigin::Corrected))
            reader.fail("corrupt kNN datastore: " + where + " has the unknown origin " + std::to_string(origins[row]));
        store.keyOrigins_.push_back(static_cast<KeyOrigin>(origins[row]));
        double squares = 0.0;
        const float* vector = store.vectors_.data() + row * store.dimension_;
        for (std::size_t i = 0; i < store.dimension_; ++i) {
            if (!std::isfinite(vector[i]))
                reader.fail("corrupt kNN datastore: the vector of " + where + " holds a value that is not finite");
            squares += static_cast<double>(vector[i]) * static_cast<double>(vector[i]);
        }
        if (std::abs(squares - 1.0) > kUnitTolerance)
            reader.fail("corrupt kNN datastore: the vector of " + where + " is not of unit length");
    }
    return store;
}

}  // namespace linkscope::retrieval
