#include "retrieval/faiss_payload_check.h"

#include <limits>
#include <string_view>

namespace linkscope::retrieval {
namespace {

struct Problem {
    std::string why;
};

constexpr std::uint32_t fourcc(std::string_view code) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(code[0])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(code[1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(code[2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(code[3])) << 24;
}

constexpr std::int32_t kMetricInnerProduct = 0;  // faiss::METRIC_INNER_PRODUCT
constexpr std::uint64_t kMaxPqBits = 16;         // ksub = 2^nbits centroids per sub-quantizer

/// The payload read forward as FAISS reads it (native byte order, as FAISS writes it), with the
/// bytes that are left always known.
class Cursor {
public:
    Cursor(std::istream& in, std::uint64_t bytes) : in_(in), left_(bytes) {}

    template <typename T>
    T read(std::string_view what) {
        if (left_ < sizeof(T)) throw Problem{"it ends inside " + std::string(what)};
        T value{};
        in_.read(reinterpret_cast<char*>(&value), sizeof(T));
        if (!in_) throw Problem{"cannot read " + std::string(what)};
        left_ -= sizeof(T);
        return value;
    }
    void skip(std::uint64_t bytes, std::string_view what) {
        requireLeft(bytes, what);
        in_.seekg(static_cast<std::streamoff>(bytes), std::ios::cur);
        if (!in_) throw Problem{"cannot read " + std::string(what)};
        left_ -= bytes;
    }
    void requireLeft(std::uint64_t bytes, std::string_view what) const {
        if (bytes > left_)
            throw Problem{std::string(what) + " would take " + std::to_string(bytes) + " bytes, but only " +
                          std::to_string(left_) + " are left"};
    }
    /// FAISS's READVECTOR: a size_t count, then that many elements. Returns the count, checked
    /// against the bytes left before FAISS would size the vector by it.
    std::uint64_t vector(std::uint64_t elementBytes, std::string_view what) {
        const auto count = read<std::uint64_t>(what);
        if (count > left_ / elementBytes)
            throw Problem{std::string(what) + " declares " + std::to_string(count) + " elements of " +
                          std::to_string(elementBytes) + " bytes, but only " + std::to_string(left_) +
                          " bytes are left"};
        skip(count * elementBytes, what);
        return count;
    }
    std::uint64_t left() const noexcept { return left_; }

private:
    std::istream& in_;
    std::uint64_t left_;
};

void expectFourcc(Cursor& cursor, std::string_view code, std::string_view what) {
    if (cursor.read<std::uint32_t>(what) != fourcc(code))
        throw Problem{std::string(what) + " is not the \"" + std::string(code) + "\" index DenseIndex writes"};
}

struct IndexHeader {
    std::int32_t d = 0;
    std::int64_t ntotal = 0;
};

// read_index_header: d, ntotal, two unused idx_t, is_trained, metric_type (metric_arg only for
// metrics above L2, which an inner-product index is not).
IndexHeader indexHeader(Cursor& cursor, std::uint64_t dimension, std::string_view what) {
    IndexHeader header;
    header.d = cursor.read<std::int32_t>(what);
    header.ntotal = cursor.read<std::int64_t>(what);
    (void)cursor.read<std::int64_t>(what);
    (void)cursor.read<std::int64_t>(what);
    (void)cursor.read<std::uint8_t>(what);
    if (cursor.read<std::int32_t>(what) != kMetricInnerProduct)
        throw Problem{std::string(what) + " does not use the inner product"};
    if (header.d <= 0 || static_cast<std::uint64_t>(header.d) != dimension)
        throw Problem{std::string(what) + " has " + std::to_string(header.d) + " dimensions, the file header " +
                      std::to_string(dimension)};
    if (header.ntotal < 0) throw Problem{std::string(what) + " holds a negative number of vectors"};
    return header;
}

// IndexFlatIP ("IxFI"): the header, then READXBVECTOR, a count of 4-byte words and the words.
std::int64_t flatIndex(Cursor& cursor, std::uint64_t dimension, std::string_view what) {
    expectFourcc(cursor, "IxFI", what);
    const IndexHeader header = indexHeader(cursor, dimension, what);
    const auto words = cursor.vector(sizeof(float), std::string(what) + "'s vectors");
    if (words / dimension != static_cast<std::uint64_t>(header.ntotal) || words % dimension != 0)
        throw Problem{std::string(what) + " holds " + std::to_string(words) + " floats for " +
                      std::to_string(header.ntotal) + " vectors of " + std::to_string(dimension) + " dimensions"};
    return header.ntotal;
}

// IndexHNSWFlat ("IHNf"): the header, read_HNSW (five vectors, five int32), the flat storage.
void hnswIndex(Cursor& cursor, std::uint64_t dimension) {
    expectFourcc(cursor, "IHNf", "the HNSW index");
    const IndexHeader header = indexHeader(cursor, dimension, "the HNSW index");
    const auto n = static_cast<std::uint64_t>(header.ntotal);
    (void)cursor.vector(sizeof(double), "the HNSW level probabilities");
    (void)cursor.vector(sizeof(std::int32_t), "the HNSW neighbour counts per level");
    if (cursor.vector(sizeof(std::int32_t), "the HNSW node levels") != n)
        throw Problem{"the HNSW node levels do not list its " + std::to_string(n) + " vectors"};
    if (cursor.vector(sizeof(std::uint64_t), "the HNSW neighbour offsets") != n + 1)
        throw Problem{"the HNSW neighbour offsets do not list its " + std::to_string(n) + " vectors"};
    (void)cursor.vector(sizeof(std::int32_t), "the HNSW neighbour table");
    for (const char* field : {"entry point", "maximum level", "efConstruction", "efSearch", "upper beam"})
        (void)cursor.read<std::int32_t>(std::string("the HNSW ") + field);
    if (flatIndex(cursor, dimension, "the HNSW storage") != header.ntotal)
        throw Problem{"the HNSW graph and its storage hold different numbers of vectors"};
}

// The sizes of array inverted lists, "full" (one per list) or "sprs" ((list, size) pairs), summed
// into the bytes their codes and ids take: FAISS sizes every list before it reads any of them.
std::uint64_t invertedListBytes(Cursor& cursor, std::uint64_t nlist, std::uint64_t codeSize) {
    const std::uint64_t perVector = codeSize + sizeof(std::int64_t);
    std::uint64_t total = 0;
    const auto add = [&](std::uint64_t size) {
        if (size > cursor.left() / perVector || total > cursor.left() - size * perVector)
            throw Problem{"the inverted lists declare more vectors than the file holds"};
        total += size * perVector;
    };
    const auto type = cursor.read<std::uint32_t>("the inverted list sizes");
    if (type == fourcc("full")) {
        const auto count = cursor.read<std::uint64_t>("the inverted list sizes");
        if (count != nlist)
            throw Problem{"the inverted lists give " + std::to_string(count) + " sizes for " + std::to_string(nlist) +
                          " lists"};
        for (std::uint64_t list = 0; list < nlist; ++list) add(cursor.read<std::uint64_t>("the inverted list sizes"));
    } else if (type == fourcc("sprs")) {
        const auto count = cursor.read<std::uint64_t>("the inverted list sizes");
        // FAISS reads pairs up to count + 1: an odd count reads past its vector.
        if (count % 2 != 0 || count / 2 > nlist)
            throw Problem{"the sparse inverted list sizes are not (list, size) pairs"};
        std::uint64_t previous = 0;
        for (std::uint64_t pair = 0; pair < count / 2; ++pair) {
            const auto list = cursor.read<std::uint64_t>("the inverted list sizes");
            // Increasing, as FAISS writes them: a list named twice would be sized twice.
            if (list >= nlist || (pair > 0 && list <= previous))
                throw Problem{"the sparse inverted list sizes name list " + std::to_string(list) + " out of order"};
            previous = list;
            add(cursor.read<std::uint64_t>("the inverted list sizes"));
        }
    } else {
        throw Problem{"the inverted list sizes are of an unknown type"};
    }
    return total;
}

// IndexIVFPQ ("IwPQ"): read_ivf_header (header, nlist, nprobe, the coarse quantizer, the direct
// map), by_residual, code_size, read_ProductQuantizer, read_InvertedLists ("ilar").
void ivfPqIndex(Cursor& cursor, std::uint64_t dimension) {
    expectFourcc(cursor, "IwPQ", "the IVF-PQ index");
    (void)indexHeader(cursor, dimension, "the IVF-PQ index");
    const auto nlist = cursor.read<std::uint64_t>("the IVF-PQ list count");
    (void)cursor.read<std::uint64_t>("the IVF-PQ probe count");
    // nlist centroids of `dimension` floats: this bounds nlist by the file's size.
    if (static_cast<std::uint64_t>(flatIndex(cursor, dimension, "the IVF-PQ coarse quantizer")) != nlist)
        throw Problem{"the IVF-PQ coarse quantizer does not hold one centroid per list"};
    if (cursor.read<std::uint8_t>("the IVF-PQ direct map") != 0 ||
        cursor.vector(sizeof(std::int64_t), "the IVF-PQ direct map") != 0)
        throw Problem{"the IVF-PQ index has a direct map, which DenseIndex never writes"};
    (void)cursor.read<std::uint8_t>("the IVF-PQ residual flag");
    const auto codeSize = cursor.read<std::uint64_t>("the IVF-PQ code size");
    const auto d = cursor.read<std::uint64_t>("the product quantizer");
    const auto m = cursor.read<std::uint64_t>("the product quantizer");
    const auto nbits = cursor.read<std::uint64_t>("the product quantizer");
    // ProductQuantizer::set_derived_values divides by M and allocates d * 2^nbits floats.
    if (d != dimension || m == 0 || d % m != 0 || nbits == 0 || nbits > kMaxPqBits)
        throw Problem{"the product quantizer's sizes (d " + std::to_string(d) + ", M " + std::to_string(m) +
                      ", nbits " + std::to_string(nbits) + ") are not those of a " + std::to_string(dimension) +
                      "-dimension index"};
    if (codeSize != (nbits * m + 7) / 8 || codeSize == 0)
        throw Problem{"the IVF-PQ code size does not match its quantizer"};
    const std::uint64_t centroids = d << nbits;
    cursor.requireLeft(centroids * sizeof(float), "the product quantizer's centroids");
    if (cursor.vector(sizeof(float), "the product quantizer's centroids") != centroids)
        throw Problem{"the product quantizer does not hold its " + std::to_string(centroids) + " centroid floats"};
    expectFourcc(cursor, "ilar", "the IVF-PQ inverted lists");
    if (cursor.read<std::uint64_t>("the inverted lists") != nlist ||
        cursor.read<std::uint64_t>("the inverted lists") != codeSize)
        throw Problem{"the inverted lists do not match the IVF-PQ index"};
    cursor.skip(invertedListBytes(cursor, nlist, codeSize), "the inverted lists' codes and ids");
}

}  // namespace

std::optional<std::string> faissPayloadProblem(std::istream& in, std::uint64_t bytes, DenseIndexKind kind,
                                               std::uint64_t dimension) {
    if (dimension == 0 || dimension > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
        return "the index has " + std::to_string(dimension) + " dimensions";
    Cursor cursor(in, bytes);
    try {
        switch (kind) {
            case DenseIndexKind::Flat:
                (void)flatIndex(cursor, dimension, "the flat index");
                break;
            case DenseIndexKind::Hnsw:
                hnswIndex(cursor, dimension);
                break;
            case DenseIndexKind::IvfPq:
                ivfPqIndex(cursor, dimension);
                break;
            case DenseIndexKind::IvfFp16:
                return "IVF-fp16 indexes are never saved, so no file holds one";
        }
    } catch (const Problem& problem) {
        return problem.why;
    }
    if (cursor.left() != 0) return std::to_string(cursor.left()) + " bytes follow the FAISS index";
    return std::nullopt;
}

}  // namespace linkscope::retrieval
