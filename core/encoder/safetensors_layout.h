#pragma once
// Private to the safetensors reader and writer: the arithmetic both sides must agree on, so that
// what the writer lays out is exactly what the reader accepts.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "encoder/safetensors.h"

namespace linkscope::encoder::detail {

/// The reference implementation refuses headers above 100 MB (MAX_HEADER_SIZE); so do we, before
/// allocating anything for one.
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

/// Bytes a tensor of `shape` and `dtype` occupies, or nullopt when a dimension is negative or the
/// product overflows 64 bits (a hostile header must not wrap around to a small size).
std::optional<std::uint64_t> checkedByteCount(DType dtype, std::span<const std::int64_t> shape) noexcept;

}  // namespace linkscope::encoder::detail
