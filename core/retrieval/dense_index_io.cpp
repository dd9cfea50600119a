// Saving and loading a DenseIndex: a Linkscope header, FAISS's own serialization and a checksum,
// and on loading every check that keeps a damaged or crafted file from reaching FAISS's search.
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <new>
#include <string_view>
#include <utility>

#include "retrieval/dense_index.h"
#include "retrieval/dense_index_internal.h"
#include "retrieval/faiss_payload_check.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::retrieval {

using detail::kindLabel;

// ----- validation of what FAISS read --------------------------------------------------------
//
// The checksum proves the file is what was written, not that it was written by us: a crafted
// file with a resealed CRC reaches faiss::read_index, which checks little of the structure it
// builds, and FAISS's search then follows neighbour ids and list sizes without bounds checks.
// Every array the three kinds' searches index is checked against the sizes it must have.
namespace {

/// Why a flat (exact) storage of `d` dimensions is not whole, or "" when it is.
std::string flatProblem(const faiss::Index* index, std::uint64_t d) {
    const auto* flat = dynamic_cast<const faiss::IndexFlatCodes*>(index);
    if (!flat) return "its vectors are not stored as a flat table";
    if (static_cast<std::uint64_t>(flat->d) != d || flat->code_size != d * sizeof(float))
        return "its flat table has vectors of " + std::to_string(flat->d) + " dimensions in codes of " +
               std::to_string(flat->code_size) + " bytes";
    if (flat->ntotal < 0 || flat->codes.size() != static_cast<std::size_t>(flat->ntotal) * flat->code_size)
        return "its flat table holds " + std::to_string(flat->codes.size()) + " bytes for " +
               std::to_string(flat->ntotal) + " vectors";
    return {};
}

std::string hnswProblem(const faiss::IndexHNSW& index, std::uint64_t d) {
    if (!index.storage) return "the graph has no vector storage";
    if (const auto problem = flatProblem(index.storage, d); !problem.empty()) return problem;
    if (index.storage->ntotal != index.ntotal) return "the graph and its storage hold different numbers of vectors";
    const faiss::HNSW& graph = index.hnsw;
    const auto n = static_cast<std::size_t>(index.ntotal);
    if (graph.levels.size() != n || graph.offsets.size() != n + 1)
        return "the graph's level tables do not match its size";
    if (graph.cum_nneighbor_per_level.empty() || graph.offsets.front() != 0)
        return "the graph's neighbour tables are damaged";
    const int levels = static_cast<int>(graph.cum_nneighbor_per_level.size()) - 1;
    for (std::size_t i = 0; i < n; ++i) {
        // A node's neighbour lists span cum_nneighbor_per_level[level] slots from offsets[i].
        if (graph.levels[i] < 1 || graph.levels[i] > levels || graph.levels[i] > graph.max_level + 1)
            return "node " + std::to_string(i) + " has level " + std::to_string(graph.levels[i]);
        const auto span =
            static_cast<std::size_t>(graph.cum_nneighbor_per_level[static_cast<std::size_t>(graph.levels[i])]);
        if (graph.offsets[i + 1] < graph.offsets[i] || graph.offsets[i + 1] - graph.offsets[i] != span)
            return "node " + std::to_string(i) + "'s neighbour list has the wrong length";
    }
    if (graph.offsets.back() != graph.neighbors.size()) return "the graph's neighbour table has the wrong size";
    for (const auto neighbour : graph.neighbors)
        if (neighbour < -1 || neighbour >= index.ntotal)
            return "a neighbour id (" + std::to_string(neighbour) + ") is outside the " + std::to_string(n) +
                   " vectors";
    for (std::size_t level = 1; level < graph.cum_nneighbor_per_level.size(); ++level)
        if (graph.cum_nneighbor_per_level[level] < graph.cum_nneighbor_per_level[level - 1])
            return "the graph's neighbour counts per level decrease";
    if (n > 0 &&
        (graph.entry_point < 0 || graph.entry_point >= index.ntotal || graph.max_level < 0 ||
         graph.max_level >= levels || graph.levels[static_cast<std::size_t>(graph.entry_point)] != graph.max_level + 1))
        return "the graph's entry point is not a node of its top level";
    return {};
}

std::string ivfPqProblem(const faiss::IndexIVFPQ& index, std::uint64_t d) {
    if (!index.quantizer || static_cast<std::size_t>(index.quantizer->ntotal) != index.nlist ||
        static_cast<std::uint64_t>(index.quantizer->d) != d)
        return "the coarse quantizer does not hold one centroid per list";
    if (const auto problem = flatProblem(index.quantizer, d); !problem.empty()) return "coarse quantizer: " + problem;
    const faiss::ProductQuantizer& pq = index.pq;
    if (pq.M == 0 || pq.dsub == 0 || pq.M * pq.dsub != d || pq.ksub != (std::size_t{1} << pq.nbits) ||
        pq.centroids.size() != pq.M * pq.ksub * pq.dsub || pq.code_size != index.code_size)
        return "the product quantizer's tables do not match its sizes";
    const auto* lists = dynamic_cast<const faiss::ArrayInvertedLists*>(index.invlists);
    if (!lists || lists->nlist != index.nlist || lists->code_size != index.code_size ||
        lists->codes.size() != index.nlist || lists->ids.size() != index.nlist)
        return "the inverted lists do not match the index";
    std::size_t total = 0;
    for (std::size_t list = 0; list < index.nlist; ++list) {
        if (lists->codes[list].size() != lists->ids[list].size() * index.code_size)
            return "inverted list " + std::to_string(list) + " holds codes and ids of different counts";
        for (const auto id : lists->ids[list])
            if (id < 0 || id >= index.ntotal)
                return "inverted list " + std::to_string(list) + " names vector " + std::to_string(id);
        total += lists->ids[list].size();
    }
    if (total != static_cast<std::size_t>(index.ntotal)) return "the inverted lists hold another number of vectors";
    return {};
}

/// Why the FAISS index read from a file cannot be searched safely, or "" when it can.
std::string structureProblem(const faiss::Index* index, DenseIndexKind kind, std::uint64_t d) {
    if (kind == DenseIndexKind::Flat) return flatProblem(index, d);
    if (kind == DenseIndexKind::Hnsw) return hnswProblem(*dynamic_cast<const faiss::IndexHNSW*>(index), d);
    return ivfPqProblem(*dynamic_cast<const faiss::IndexIVFPQ*>(index), d);
}

}  // namespace

// ----- file format ---------------------------------------------------------------------------
//
// Version 1, little-endian, no padding:
//   magic "LSDENSE1" (8), u32 version, u8 kind (0 flat, 1 hnsw, 2 ivf-pq), u64 dimension,
//   u64 count, u64 fingerprint bytes F, F bytes of fingerprint,
//   the index as faiss::write_index writes it,
//   u64 byte count of that FAISS payload, u32 CRC-32 (zlib) of every byte before it.
// The checksum is verified before FAISS parses anything: a damaged size field inside FAISS's
// own format would otherwise make it allocate whatever the damage says.
namespace {

constexpr std::string_view kMagic = "LSDENSE1";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeaderBytes = 8 + 4 + 1 + 8 + 8 + 8;
constexpr std::size_t kTrailerBytes = 8 + 4;
constexpr std::uint64_t kMaxFingerprintBytes = 1 << 20;

template <typename T>
void appendScalar(std::string& out, T value) {
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
    out.append(reinterpret_cast<const char*>(raw), sizeof(T));
}

// FAISS's serializer writing straight into the atomic file, counting and checksumming as it
// goes, so that a large index is not first copied into memory.
class StreamWriter final : public faiss::IOWriter {
public:
    explicit StreamWriter(std::ostream& out) : out_(out) {}

    std::size_t operator()(const void* data, std::size_t size, std::size_t items) override {
        put(data, size * items);
        return out_.good() ? items : 0;
    }
    void put(const void* data, std::size_t bytes) { out_.bytes(data, bytes); }
    std::uint32_t checksum() const noexcept { return out_.checksum(); }
    std::uint64_t written() const noexcept { return out_.written(); }

private:
    ChecksummedWriter out_;
};

// FAISS's deserializer reading the payload of the file and no further: a read past the
// payload's end is short, which FAISS reports as a read error.
class BoundedReader final : public faiss::IOReader {
public:
    BoundedReader(std::istream& in, std::uint64_t limit) : in_(in), left_(limit) {}

    std::size_t operator()(void* data, std::size_t size, std::size_t items) override {
        if (size == 0 || items == 0) return 0;
        const std::uint64_t whole = std::min<std::uint64_t>(items, left_ / size);
        in_.read(static_cast<char*>(data), static_cast<std::streamsize>(whole * size));
        const auto got = static_cast<std::uint64_t>(in_.gcount());
        left_ -= got;
        return static_cast<std::size_t>(got / size);
    }
    std::uint64_t left() const noexcept { return left_; }

private:
    std::istream& in_;
    std::uint64_t left_;
};

struct FileHeader {
    DenseIndexKind kind = DenseIndexKind::Flat;
    std::uint64_t dimension = 0;
    std::uint64_t count = 0;
    std::string fingerprint;
    std::uint64_t headerBytes = 0;
};

}  // namespace

void DenseIndex::save(const std::filesystem::path& file) const {
    if (!state_) throw Error("dense index: nothing to save: the index was not built or loaded");
    if (state_->kind == DenseIndexKind::IvfFp16)
        throw Error("dense index: an IVF-fp16 index is rebuilt, not saved to " + file.string() +
                    " (loading checks each FAISS layout it reads, and this one is not among them yet)");
    std::string header(kMagic);
    appendScalar<std::uint32_t>(header, kVersion);
    appendScalar<std::uint8_t>(header, static_cast<std::uint8_t>(state_->kind));
    appendScalar<std::uint64_t>(header, state_->dimension);
    appendScalar<std::uint64_t>(header, state_->size());
    appendScalar<std::uint64_t>(header, state_->fingerprint.size());
    header += state_->fingerprint;

    AtomicFileWriter writer(file);
    StreamWriter out(writer.stream());
    out.put(header.data(), header.size());
    try {
        faiss::write_index(state_->index.get(), &out);
    } catch (const faiss::FaissException& e) {
        throw Error("dense index: cannot write " + file.string() + ": " + e.what());
    }
    std::string trailer;
    appendScalar<std::uint64_t>(trailer, out.written() - header.size());
    out.put(trailer.data(), trailer.size());
    std::string checksum;
    appendScalar<std::uint32_t>(checksum, out.checksum());
    writer.stream().write(checksum.data(), static_cast<std::streamsize>(checksum.size()));
    if (!writer.stream()) throw Error("dense index: cannot write " + file.string());
    writer.commit();
}

DenseIndex DenseIndex::load(const std::filesystem::path& file, const std::string& expectedFingerprint) {
    const std::string name = file.string();
    const auto fail = [&name](const std::string& message) -> ParseError { return ParseError(name, 0, message); };
    std::error_code error;
    if (std::filesystem::is_directory(file, error)) throw fail("cannot open the dense index file: it is a folder");
    InputFileStream in(file, "the dense index file", std::ios::binary | std::ios::ate);
    const auto end = static_cast<std::streamoff>(in.tellg());
    if (end < 0) throw fail("cannot read the dense index file");
    const auto fileBytes = static_cast<std::uint64_t>(end);

    // The fixed header, then the fingerprint it announces.
    FileHeader header;
    char fixed[kFixedHeaderBytes];
    in.seekg(0);
    if (fileBytes < kMagic.size() || !in.read(fixed, kMagic.size()) || std::string_view(fixed, kMagic.size()) != kMagic)
        throw fail("not a Linkscope dense index (the file does not start with \"LSDENSE1\")");
    if (fileBytes < kFixedHeaderBytes + kTrailerBytes ||
        !in.read(fixed + kMagic.size(), kFixedHeaderBytes - kMagic.size()))
        throw fail("truncated dense index: the file ends inside its header (" + std::to_string(fileBytes) + " bytes)");
    const auto version = readLittleEndian<std::uint32_t>(fixed + 8);
    if (version != kVersion)
        throw fail("dense index format version " + std::to_string(version) + " is not supported (this build reads " +
                   std::to_string(kVersion) + ")");
    const auto kindCode = readLittleEndian<std::uint8_t>(fixed + 12);
    if (kindCode > static_cast<std::uint8_t>(DenseIndexKind::IvfPq))
        throw fail("corrupt dense index: unknown index kind " + std::to_string(kindCode));
    header.kind = static_cast<DenseIndexKind>(kindCode);
    header.dimension = readLittleEndian<std::uint64_t>(fixed + 13);
    header.count = readLittleEndian<std::uint64_t>(fixed + 21);
    const auto fingerprintBytes = readLittleEndian<std::uint64_t>(fixed + 29);
    if (fingerprintBytes > kMaxFingerprintBytes || fingerprintBytes > fileBytes - kFixedHeaderBytes - kTrailerBytes)
        throw fail("corrupt or truncated dense index: a fingerprint of " + std::to_string(fingerprintBytes) +
                   " bytes does not fit in the file");
    header.fingerprint.resize(static_cast<std::size_t>(fingerprintBytes));
    if (!in.read(header.fingerprint.data(), static_cast<std::streamsize>(fingerprintBytes)))
        throw fail("cannot read the dense index file");
    header.headerBytes = kFixedHeaderBytes + fingerprintBytes;

    // The trailer: the payload's size must account for every byte, and the checksum for each.
    const std::uint64_t payloadBytes = fileBytes - header.headerBytes - kTrailerBytes;
    char trailer[kTrailerBytes];
    in.seekg(static_cast<std::streamoff>(fileBytes - kTrailerBytes));
    if (!in.read(trailer, kTrailerBytes)) throw fail("cannot read the dense index file");
    const auto recordedPayload = readLittleEndian<std::uint64_t>(trailer);
    if (recordedPayload != payloadBytes)
        throw fail("truncated or damaged dense index: it records " + std::to_string(recordedPayload) +
                   " bytes of FAISS index but holds " + std::to_string(payloadBytes));
    if (streamChecksum(in, fileBytes - 4, name, "dense index") != readLittleEndian<std::uint32_t>(trailer + 8))
        throw fail("damaged dense index: the checksum does not match its content");
    if (header.dimension == 0) throw fail("corrupt dense index: dimension 0");

    if (!expectedFingerprint.empty() && header.fingerprint != expectedFingerprint)
        throw Error(name + ": the dense index was built for " +
                    (header.fingerprint.empty() ? std::string("an unknown model and dictionary")
                                                : "\"" + header.fingerprint + "\"") +
                    ", not for \"" + expectedFingerprint +
                    "\" (the model or the dictionary changed): rebuild the index with `linkscope-cli index`");

    // Walked first: FAISS sizes its vectors by what the payload declares before reading them.
    in.clear();
    in.seekg(static_cast<std::streamoff>(header.headerBytes));
    if (const auto problem = faissPayloadProblem(in, payloadBytes, header.kind, header.dimension))
        throw fail("damaged dense index: the FAISS payload is not the " + kindLabel(header.kind) +
                   " index this file's header names: " + *problem);

    auto state = std::make_unique<State>();
    state->kind = header.kind;
    state->dimension = static_cast<std::size_t>(header.dimension);
    state->fingerprint = std::move(header.fingerprint);
    in.clear();
    in.seekg(static_cast<std::streamoff>(header.headerBytes));
    BoundedReader reader(in, payloadBytes);
    reader.name = name;
    try {
        state->index.reset(faiss::read_index(&reader));
    } catch (const faiss::FaissException& e) {
        throw fail(std::string("damaged dense index: FAISS cannot read it: ") + e.what());
    } catch (const std::bad_alloc&) {
        // A size field inside FAISS's payload asked for more memory than there is.
        throw fail("damaged dense index: FAISS's payload declares sizes beyond the memory of this machine");
    } catch (const std::exception& e) {
        throw fail(std::string("damaged dense index: FAISS cannot read it: ") + e.what());
    }
    if (reader.left() != 0)
        throw fail("damaged dense index: " + std::to_string(reader.left()) + " bytes follow the FAISS index");
    const faiss::Index* index = state->index.get();
    const bool kindMatches = (header.kind == DenseIndexKind::Flat && dynamic_cast<const faiss::IndexFlatIP*>(index)) ||
                             (header.kind == DenseIndexKind::Hnsw && dynamic_cast<const faiss::IndexHNSW*>(index)) ||
                             (header.kind == DenseIndexKind::IvfPq && dynamic_cast<const faiss::IndexIVFPQ*>(index));
    if (!kindMatches || index->metric_type != faiss::METRIC_INNER_PRODUCT)
        throw fail("damaged dense index: the FAISS index is not the " + kindLabel(header.kind) +
                   " inner-product index its header names");
    if (static_cast<std::uint64_t>(index->d) != header.dimension ||
        static_cast<std::uint64_t>(index->ntotal) != header.count)
        throw fail("damaged dense index: the FAISS index holds " + std::to_string(index->ntotal) + " vectors of " +
                   std::to_string(index->d) + " dimensions, the header " + std::to_string(header.count) + " of " +
                   std::to_string(header.dimension));
    if (const auto problem = structureProblem(index, header.kind, header.dimension); !problem.empty())
        throw fail("damaged dense index: " + problem);
    // Search knobs are not part of the file's promise: the defaults apply until
    // setSearchOptions(), whatever FAISS stored.
    state->applySearchOptions(DenseIndexOptions{});
    DenseIndex result;
    result.state_ = std::move(state);
    return result;
}

}  // namespace linkscope::retrieval
