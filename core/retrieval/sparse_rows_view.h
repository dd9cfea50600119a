#pragma once
// Read-only sparse rows (CSR) over arrays held elsewhere: the rows a TfidfVectorizer fitted
// (BasicSparseRows) or the same arrays in a mapped index file (sparse_index_io.h). The view does
// not own them; whoever makes one keeps their owner alive as long as the view is used.
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>

#include "retrieval/tfidf.h"

namespace linkscope::retrieval {

/// Row i holds terms[offsets[i] .. offsets[i + 1]) and their weights; Term is the width of the
/// term ids (16 or 32 bits, as in BasicSparseRows).
template <class Term>
struct SparseRowsView {
    std::span<const std::uint64_t> offsets;
    std::span<const Term> terms;
    std::span<const float> weights;

    static SparseRowsView of(const BasicSparseRows<Term>& rows) noexcept {
        return {std::span<const std::uint64_t>(rows.offsets), std::span<const Term>(rows.terms),
                std::span<const float>(rows.weights)};
    }
    std::size_t rows() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
    std::span<const Term> rowTerms(std::size_t row) const noexcept {
        return terms.subspan(offsets[row], offsets[row + 1] - offsets[row]);
    }
    std::span<const float> rowWeights(std::size_t row) const noexcept {
        return weights.subspan(offsets[row], offsets[row + 1] - offsets[row]);
    }
    std::size_t bytes() const noexcept { return offsets.size_bytes() + terms.size_bytes() + weights.size_bytes(); }
};

/// The view of a CompactSparseRows: 16-bit term ids when the vocabulary allows.
using CompactSparseRowsView = std::variant<SparseRowsView<std::uint16_t>, SparseRowsView<std::uint32_t>>;

inline CompactSparseRowsView viewOf(const CompactSparseRows& rows) noexcept {
    return std::visit(
        [](const auto& held) -> CompactSparseRowsView {
            using Term = typename std::decay_t<decltype(held.terms)>::value_type;
            return SparseRowsView<Term>::of(held);
        },
        rows);
}

/// Checks rows read from outside: `names` rows, each of distinct term ids below `terms` in
/// ascending order with positive finite weights. Throws Error naming the first inconsistency.
void checkRows(const CompactSparseRowsView& rows, std::size_t names, std::size_t terms);

}  // namespace linkscope::retrieval
