#include "kb/umls_reserve.h"

#include <algorithm>

namespace linkscope::kb::detail {

ReserveEstimate estimateReserve(const ConsoSample& sample, std::uintmax_t fileBytes, bool compressed) noexcept {
    if (sample.rowsRead == 0 || sample.bytesRead == 0 || sample.rowsKept == 0) return {};
    // Rates as doubles: a file size times a row count can pass 2^64.
    const double textBytes = static_cast<double>(fileBytes) * (compressed ? 5.0 : 1.0);
    const double bytesPerRow = static_cast<double>(sample.bytesRead) / static_cast<double>(sample.rowsRead);
    const double rows = std::min(textBytes / bytesPerRow, static_cast<double>(kMaxEstimatedRows));
    const double kept = rows * static_cast<double>(sample.rowsKept) / static_cast<double>(sample.rowsRead);
    const double perKept = 1.0 / static_cast<double>(sample.rowsKept);
    ReserveEstimate estimate;
    estimate.names = static_cast<std::size_t>(kept);
    // At most half as many concepts as names: a sample whose rows are not grouped by concept
    // (MRCONSO.RRF is sorted by CUI; a hand-made or shuffled file may not be) shows nearly every
    // row as a new concept, and an estimate of one concept a name doubles the pools' tables
    // (benchmarks/kb_memory's scattered rows show it in the peak). UMLS keeps about 2.3 English names
    // a concept; a KB with fewer grows the rest of the way, as without an estimate.
    const double concepts = std::min(static_cast<double>(sample.conceptsKept) * perKept, 0.5);
    estimate.entities = static_cast<std::size_t>(kept * concepts);
    estimate.nameBytes = static_cast<std::size_t>(
        std::min(kept * static_cast<double>(sample.nameBytes) * perKept, static_cast<double>(kMaxEstimatedNameBytes)));
    return estimate;
}

}  // namespace linkscope::kb::detail
