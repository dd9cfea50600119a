#pragma once
// A walk over the FAISS payload of a dense index file before faiss::read_index sees it.
//
// FAISS 1.7.3's reader trusts the sizes it reads: READVECTOR resizes a vector to whatever count
// the file declares (up to 2^40 elements) before reading its data, ProductQuantizer's derived
// values allocate d * 2^nbits floats and divide by M, and the inverted lists are all sized
// before any of their codes is read. The file's CRC-32 only proves the bytes are the ones
// written, not who wrote them (a crafted file reseals it). So the payload is walked first, field
// by field as FAISS 1.7.3 reads it (faiss/impl/index_read.cpp), for exactly the three layouts
// DenseIndex::save writes, and every count is checked against the bytes that are left: after
// the walk, nothing FAISS allocates while reading can exceed the file's size (plus the small
// per-list and per-node overheads of its containers).
#include <cstdint>
#include <istream>
#include <optional>
#include <string>

#include "retrieval/dense_index.h"

namespace linkscope::retrieval {

/// Reads `bytes` bytes of `in` from its current position. Returns why they are not the FAISS
/// serialization of an inner-product index of `kind` with `dimension` dimensions (flat:
/// IndexFlatIP; hnsw: IndexHNSWFlat over an IndexFlatIP; ivf-pq: IndexIVFPQ with an IndexFlatIP
/// coarse quantizer, no direct map and array inverted lists), or nullopt when they are.
std::optional<std::string> faissPayloadProblem(std::istream& in, std::uint64_t bytes, DenseIndexKind kind,
                                               std::uint64_t dimension);

}  // namespace linkscope::retrieval
