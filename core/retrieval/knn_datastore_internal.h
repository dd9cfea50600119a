#pragma once
// Internal to core/retrieval: what knn_datastore.cpp (the store) and knn_datastore_search.cpp
// (its search) share.
#include <cstddef>
#include <span>
#include <vector>

namespace linkscope::retrieval::detail {

/// Unit-length copies of rows of `dimension` values (each norm taken in double, so that neither
/// huge nor tiny finite values overflow or underflow on the way). Throws Error naming the first
/// row ("kNN datastore: <what> <row> ...") that is the zero vector or holds NaN or infinity.
std::vector<float> normalizedRows(std::span<const float> rows, std::size_t dimension, const char* what);

}  // namespace linkscope::retrieval::detail
