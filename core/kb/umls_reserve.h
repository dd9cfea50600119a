#pragma once
// How much room the UMLS loader gives the KB builder before reading all of MRCONSO.RRF: sized
// from what its first rows showed, so that the string pools are built once at their final size
// instead of re-hashing at every doubling (benchmarks/string_pool_intern --reserve compares the
// two). Nothing is reserved before rows have been read and kept: a file that fails at
// its first line, or whose filters keep nothing, allocates nothing for its size.
#include <cstddef>
#include <cstdint>

namespace linkscope::kb::detail {

/// What the first rows of MRCONSO.RRF showed.
struct ConsoSample {
    std::size_t rowsRead = 0;      ///< non-empty rows read, kept or not
    std::size_t bytesRead = 0;     ///< their text, line ends included
    std::size_t rowsKept = 0;      ///< rows that became a name of the KB
    std::size_t conceptsKept = 0;  ///< distinct concepts among them
    std::size_t nameBytes = 0;     ///< the kept names' text
};

/// Room for the builder (KnowledgeBaseBuilder::reserve's three sizes).
struct ReserveEstimate {
    std::size_t entities = 0;
    std::size_t names = 0;
    std::size_t nameBytes = 0;
};

/// Rows read before the estimate is made: about 300 concepts of UMLS.
inline constexpr std::size_t kConsoSampleRows = 4096;
/// The estimate counts at most this many rows in the file (UMLS has about 17 M of every
/// language), so that a huge or hostile file size allocates nothing unusual.
inline constexpr std::uintmax_t kMaxEstimatedRows = 40'000'000;
/// Likewise for the names' text (32 bytes a name at the row cap): first rows with long names in a
/// huge, mostly empty (sparse) file must not reserve terabytes.
inline constexpr std::uintmax_t kMaxEstimatedNameBytes = kMaxEstimatedRows * 32;

/// The whole file's rows at the sample's bytes a row, kept and grouped into concepts at the
/// sample's rates (at most one concept for two names; the text within kMaxEstimatedNameBytes). A gzip file is taken to hold five times
/// its size of text (MRCONSO compresses about so). All zeros when the sample read or kept nothing.
ReserveEstimate estimateReserve(const ConsoSample& sample, std::uintmax_t fileBytes, bool compressed) noexcept;

}  // namespace linkscope::kb::detail
