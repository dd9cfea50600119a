#pragma once
// Internal to core/retrieval: what dense_index.cpp (search), dense_index_builder.cpp (building)
// and dense_index_io.cpp (the file format) share about the FAISS index behind a DenseIndex.
// Includes FAISS and OpenMP, so it never goes into a public header.
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVF.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "retrieval/dense_index.h"
#include "util/error.h"

namespace linkscope::retrieval {

namespace detail {

using FaissId = faiss::Index::idx_t;

inline std::string kindLabel(DenseIndexKind kind) { return std::string(denseIndexKindName(kind)); }

// Sets OpenMP's thread count for the calling thread for one call, restoring it afterwards.
// omp_set_num_threads() changes the nthreads-var ICV of the calling thread's data environment
// only (OpenMP 5 §2.4; libgomp gives each native thread its own copy), so a GUI worker that
// searches with 1 thread does not slow the CLI thread's parallel regions, and restoring it
// keeps the caller's own setting. threads == 0 leaves OpenMP's default (OMP_NUM_THREADS or
// the number of cores) untouched.
class ScopedOmpThreads {
public:
    explicit ScopedOmpThreads(unsigned threads) : previous_(threads > 0 ? omp_get_max_threads() : 0) {
        if (threads > 0)
            omp_set_num_threads(static_cast<int>(std::min<unsigned>(threads, std::numeric_limits<int>::max())));
    }
    ~ScopedOmpThreads() {
        if (previous_ > 0) omp_set_num_threads(previous_);
    }
    ScopedOmpThreads(const ScopedOmpThreads&) = delete;
    ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

private:
    int previous_;
};

// Throws Error naming the first row of `values` (rows of `dimension`) that holds NaN or infinity.
inline void requireFinite(std::span<const float> values, std::size_t dimension, const char* what) {
    const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    if (bad != values.end())
        throw Error(std::string("dense index: ") + what + " row " +
                    std::to_string(static_cast<std::size_t>(bad - values.begin()) / dimension) +
                    " holds a value that is not a finite number");
}

}  // namespace detail

/// A built or loaded index: the FAISS index, what it was built for, and its search threads.
struct DenseIndex::State {
    DenseIndexKind kind = DenseIndexKind::Flat;
    std::size_t dimension = 0;
    std::string fingerprint;
    unsigned threads = 0;
    std::unique_ptr<faiss::Index> index;

    std::size_t size() const noexcept { return index ? static_cast<std::size_t>(index->ntotal) : 0; }

    void applySearchOptions(const DenseIndexOptions& options) {
        threads = options.threads;
        if (auto* hnsw = dynamic_cast<faiss::IndexHNSW*>(index.get()))
            hnsw->hnsw.efSearch = static_cast<int>(std::max<std::size_t>(1, options.hnswEfSearch));
        if (auto* ivf = dynamic_cast<faiss::IndexIVF*>(index.get()))
            ivf->nprobe = std::clamp<std::size_t>(options.ivfProbes, 1, ivf->nlist);
    }

    // FAISS's k best of `rows` queries, as asked (k <= size()).
    void faissSearch(const float* queries, std::size_t rows, std::size_t k, std::vector<float>& scores,
                     std::vector<detail::FaissId>& labels) const {
        scores.assign(rows * k, 0.0f);
        labels.assign(rows * k, -1);
        index->search(static_cast<detail::FaissId>(rows), queries, static_cast<detail::FaissId>(k), scores.data(),
                      labels.data());
    }
};

}  // namespace linkscope::retrieval
