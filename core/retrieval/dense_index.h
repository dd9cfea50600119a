#pragma once
// Nearest names by the inner product of their vectors: FAISS behind a faiss-free header. Exact
// search (IndexFlatIP) is the default, as the papers use; HNSW and IVF-PQ trade recall for
// speed on UMLS-sized dictionaries (their recall against exact search: benchmarks/dense_faiss).
// IVF-fp16 is for dictionaries of millions of names: k-means inverted lists whose vectors are
// kept in half precision, so they take half the memory of a flat table, scores are the fp16
// vectors', and recall is set by the lists probed (benchmarks/dense_scale). DenseIndexBuilder
// builds any kind from rows given in chunks, so that its caller never holds every vector at
// once. Search: dense_index.cpp; building: dense_index_builder.cpp; the file:
// dense_index_io.cpp.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "retrieval/name_dictionary.h"
#include "util/progress.h"

namespace linkscope::retrieval {

enum class DenseIndexKind { Flat, Hnsw, IvfPq, IvfFp16 };
std::string_view denseIndexKindName(DenseIndexKind kind) noexcept;  ///< "flat", "hnsw", "ivf-pq", "ivf-fp16"

struct DenseIndexOptions {
    DenseIndexKind kind = DenseIndexKind::Flat;
    // HNSW
    std::size_t hnswM = 32;
    /// Insertion is slow with Debian's FAISS (built for generic x86-64, no AVX2), and both its
    /// time and the graph's recall grow with efConstruction: 100 is a middle way between FAISS's
    /// default 40 and 200.
    std::size_t hnswEfConstruction = 100;
    std::size_t hnswEfSearch = 128;
    // IVF-PQ (0: chosen from the size: lists ~ 4 sqrt(n) but at most n / 39, so that every list has
    // the 39 training vectors FAISS's k-means wants; sub-quantizers: the divisor of dim nearest
    // dim / 8). Building refuses (Error) fewer than 39 * lists or 2^pqBits vectors. Training uses
    // at most 256 vectors per list, a fixed-seed sample.
    std::size_t ivfLists = 0;
    std::size_t pqSubquantizers = 0;
    std::size_t pqBits = 8;
    /// Lists searched per query (IVF-PQ and IVF-fp16).
    std::size_t ivfProbes = 32;
    // IVF-fp16: lists 0 = ~sqrt(n) (at most n / 39), trained on 64 vectors per list; the lists
    // are about sqrt(n) long, so a query reads probes x sqrt(n) vectors.

    /// OpenMP threads for build and search (0: OpenMP's default, OMP_NUM_THREADS or the cores).
    /// Applied to the calling thread for the duration of the call and restored afterwards:
    /// OpenMP keeps the thread count per calling thread, so other threads are not affected.
    unsigned threads = 0;
};

class DenseIndex {
public:
    DenseIndex();
    DenseIndex(DenseIndex&&) noexcept;
    DenseIndex& operator=(DenseIndex&&) noexcept;
    ~DenseIndex();

    /// Indexes rows of `vectors` (count x dimension, row-major); row i is entry i. `fingerprint`
    /// identifies the model and dictionary that made the vectors and is saved with the index.
    /// Reports "Indexing vectors" (and, for IVF-PQ, "Training vector quantizers" first) and
    /// checks for cancellation between chunks of rows. Throws Error on a ragged or non-finite
    /// input, or an IVF-PQ with too few vectors to train.
    static DenseIndex build(std::span<const float> vectors, std::size_t dimension, std::string fingerprint,
                            const DenseIndexOptions& options = {}, const ProgressSink* progress = nullptr);

    /// The k best rows for each query (queries.size() / dimension() of them), by inner product,
    /// descending; ties by row ascending (exact search). Fewer than k when the index is smaller.
    /// Flat: the rows are exactly the k best by the scores FAISS computes (with BLAS for batches
    /// of 20 or more queries, so a score may differ from bruteForceSearch's in its last bits),
    /// and rows tied at the k-th score are the lowest ones. HNSW / IVF-PQ: approximate rows (an
    /// IVF-PQ score is the quantized vector's), still listed by score descending, row ascending;
    /// rows an approximate search does not reach are left out, so a list may hold fewer than k.
    /// Throws Error when queries.size() is not a multiple of dimension() or holds NaN/infinity.
    std::vector<std::vector<Candidate>> search(std::span<const float> queries, std::size_t k) const;

    std::size_t size() const noexcept;
    std::size_t dimension() const noexcept;
    DenseIndexKind kind() const noexcept;
    const std::string& fingerprint() const noexcept;
    std::size_t memoryBytes() const noexcept;
    /// The indexed vectors, row-major (size() x dimension()): exact for flat and HNSW indexes,
    /// decoded (approximate) for IVF-PQ. What the hybrid ranker rescores with after a load.
    std::vector<float> vectors() const;
    /// Row `row` as the index keeps it (exact for flat and HNSW, fp16-rounded for IVF-fp16) into
    /// `out` (dimension() values): what a caller that keeps no vectors of its own rescores with.
    /// Throws Error for an IVF-PQ index (it keeps no row-to-list map) or a row out of range.
    void row(std::size_t row, std::span<float> out) const;
    /// Changes the search-time knobs (efSearch, probes, threads) of a built or loaded index.
    void setSearchOptions(const DenseIndexOptions& options);

    /// Writes the index and its fingerprint atomically: a small Linkscope header ("LSDENSE1"),
    /// FAISS's own serialization, and a CRC-32 of all of it. Search options are not saved.
    /// An IVF-fp16 index is refused (Error): load() checks the FAISS payload field by field
    /// before FAISS reads it (faiss_payload_check.h), and that walk knows the other three
    /// layouts only, so such an index is rebuilt rather than read back unchecked.
    void save(const std::filesystem::path& file) const;
    /// Throws ParseError naming the file when it is not a Linkscope dense index or is damaged,
    /// and Error when expectedFingerprint is non-empty and differs (the message says which model
    /// and dictionary the index was built for and that it must be rebuilt).
    static DenseIndex load(const std::filesystem::path& file, const std::string& expectedFingerprint = {});

private:
    friend class DenseIndexBuilder;
    struct State;
    std::unique_ptr<State> state_;
};

/// Builds a DenseIndex from rows given in chunks. IVF kinds are trained first: trainingRows()
/// names the rows of the whole set the sample is made of (a fixed-seed choice, the same that
/// DenseIndex::build makes), train() takes their vectors in that order; then add() takes every
/// row in order, in chunks of any size, and finish() hands the index over. Flat and HNSW need
/// no training (trainingRows() is empty). Errors as DenseIndex::build; add() checks for
/// cancellation and reports "Indexing vectors" against expectedRows.
class DenseIndexBuilder {
public:
    DenseIndexBuilder(std::size_t dimension, std::size_t expectedRows, std::string fingerprint,
                      const DenseIndexOptions& options = {}, const ProgressSink* progress = nullptr);
    DenseIndexBuilder(DenseIndexBuilder&&) noexcept;
    DenseIndexBuilder& operator=(DenseIndexBuilder&&) noexcept;
    ~DenseIndexBuilder();

    /// The rows (ascending) whose vectors train() wants; empty when the kind needs no training.
    const std::vector<std::size_t>& trainingRows() const noexcept;
    void train(std::span<const float> sample);
    void add(std::span<const float> rows);
    /// Throws Error when fewer or more rows than expectedRows were added.
    DenseIndex finish();

private:
    struct Building;
    std::unique_ptr<Building> building_;
};

/// The k best rows by brute force (exact inner products, ties by row): the reference the tests
/// hold FAISS to, and what tiny dictionaries use.
std::vector<std::vector<Candidate>> bruteForceSearch(std::span<const float> vectors, std::size_t dimension,
                                                     std::span<const float> queries, std::size_t k);

}  // namespace linkscope::retrieval
