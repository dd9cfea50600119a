#pragma once
// Read-only sparse columns (CSC, an inverted index's postings) over arrays held elsewhere: the
// columns a TfidfVectorizer fitted (SparseColumns) or the same arrays in a mapped index file
// (sparse_index_io.h). The view does not own them; whoever makes one keeps their owner alive.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "retrieval/tfidf.h"

namespace linkscope::retrieval {

/// Term t's column holds documents/weights[offsets[t] .. offsets[t + 1]), sorted by document.
struct SparseColumnsView {
    std::span<const std::uint64_t> offsets;
    std::span<const std::uint32_t> documents;
    std::span<const float> weights;

    static SparseColumnsView of(const SparseColumns& columns) noexcept {
        return {std::span<const std::uint64_t>(columns.offsets), std::span<const std::uint32_t>(columns.documents),
                std::span<const float>(columns.weights)};
    }
    std::size_t bytes() const noexcept { return offsets.size_bytes() + documents.size_bytes() + weights.size_bytes(); }
};

/// Checks columns read from outside: one per term, none empty, each of distinct documents below
/// `documents` in ascending order with positive finite weights. Throws Error naming the first
/// inconsistency; `what` names the columns in it ("posting": "posting offsets do not match ...",
/// "postings of term 3 are out of range or not sorted").
void checkColumns(const SparseColumnsView& columns, std::size_t terms, std::uint64_t documents, std::string_view what);

}  // namespace linkscope::retrieval
