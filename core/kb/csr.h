#pragma once
// Compressed sparse rows: a one-to-many relation (entity -> names, name -> entities, ...) kept
// as two flat arrays instead of a vector per row. Row r is values[offsets[r], offsets[r+1]).
// For millions of rows this costs 4 bytes per row plus 4 per value, where a
// std::vector<std::vector<>> would cost 24 bytes per row plus a heap block each.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace linkscope::kb {

struct Csr {
    std::vector<std::uint32_t> offsets{0};
    std::vector<std::uint32_t> values;

    std::size_t rows() const noexcept { return offsets.size() - 1; }
    std::span<const std::uint32_t> row(std::size_t r) const noexcept {
        return std::span<const std::uint32_t>(values).subspan(offsets[r], offsets[r + 1] - offsets[r]);
    }
    std::size_t memoryBytes() const noexcept {
        return (offsets.capacity() + values.capacity()) * sizeof(std::uint32_t);
    }
};

/// One (row, value) fact of a relation before it is grouped into a Csr.
struct RowValue {
    std::uint32_t row;
    std::uint32_t value;
};

/// Groups facts by row with a counting sort, keeping the order in which the facts of one row
/// were given (stable), so that "first seen" meanings such as the preferred name survive.
/// Throws Error when there are 2^32 or more facts (the offsets are 32-bit).
Csr groupByRow(std::size_t rows, std::span<const RowValue> facts);

/// The inverse relation: row v of the result lists the rows of `csr` that contain value v, in
/// ascending order. `valueRange` is one more than the largest value.
Csr transpose(const Csr& csr, std::size_t valueRange);

}  // namespace linkscope::kb
