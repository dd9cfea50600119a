#include "kb/csr.h"

#include <limits>

#include "util/error.h"

namespace linkscope::kb {

Csr groupByRow(std::size_t rows, std::span<const RowValue> facts) {
    if (facts.size() >= std::numeric_limits<std::uint32_t>::max())
        throw Error("relation too large: 2^32 or more entries");
    Csr csr;
    csr.offsets.assign(rows + 1, 0);
    for (const RowValue& fact : facts) ++csr.offsets[fact.row + 1];
    for (std::size_t r = 0; r < rows; ++r) csr.offsets[r + 1] += csr.offsets[r];
    csr.values.resize(facts.size());
    std::vector<std::uint32_t> cursor(csr.offsets.begin(), csr.offsets.end() - 1);
    for (const RowValue& fact : facts) csr.values[cursor[fact.row]++] = fact.value;
    return csr;
}

Csr transpose(const Csr& csr, std::size_t valueRange) {
    Csr result;
    result.offsets.assign(valueRange + 1, 0);
    for (const std::uint32_t value : csr.values) ++result.offsets[value + 1];
    for (std::size_t v = 0; v < valueRange; ++v) result.offsets[v + 1] += result.offsets[v];
    result.values.resize(csr.values.size());
    std::vector<std::uint32_t> cursor(result.offsets.begin(), result.offsets.end() - 1);
    for (std::size_t r = 0; r < csr.rows(); ++r)
        for (const std::uint32_t value : csr.row(r)) result.values[cursor[value]++] = static_cast<std::uint32_t>(r);
    return result;
}

}  // namespace linkscope::kb
