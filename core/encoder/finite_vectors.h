#pragma once
// The check every vector passes on its way out of the encoder: finite values, and a length at
// which any score between two vectors stays finite. A model whose forward pass overflows
// float32 (weights too large for it, or a half precision too narrow for them) would otherwise
// hand NaN vectors to encode, the dense index, evaluation and linking, which rank and print
// them without complaint. Torch-free: it reads plain float rows.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace linkscope::encoder {

/// The largest L2 length a vector may have: sqrt(FLT_MAX) / 2. For two vectors at most this
/// long an inner product or cosine (at most |u| |v|) and a squared distance (at most
/// (|u| + |v|)^2) stay below FLT_MAX.
double maxVectorLength() noexcept;

/// Throws Error naming `model` (e.g. "the model in DIR") and the first bad row when a row of
/// `vectors` (rows of `dimension` values) holds a NaN or infinite value or is longer than
/// maxVectorLength(). `texts`, when given (one per row), names the row's text as well.
void requireFiniteVectors(std::span<const float> vectors, std::size_t dimension, std::string_view model,
                          std::span<const std::string> texts = {});

}  // namespace linkscope::encoder
