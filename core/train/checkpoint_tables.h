#pragma once
// The tables a checkpoint keeps what the objectives' last refresh computed in (objective.h,
// saveState / loadState): candidate rows (entry ids) and vectors. What `train --resume` reads
// back from outside files, so every value that indexes an array later (an entry id, a row count,
// a dimension) is checked here, when it is read. Torch-free, so that the reader is fuzzed
// (tests/fuzz/fuzz_resume_tables.cpp).
//
// Layout, little-endian: the 8 bytes "LSTABLE1", a u64 width (ids per row; 1 for vectors), a u64
// count of values, then the values (u32 ids or f32), nothing after them.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace linkscope::train {

void writeIdTable(const std::filesystem::path& file, std::span<const std::uint32_t> values, std::size_t width);
void writeVectorTable(const std::filesystem::path& file, std::span<const float> values);

/// Reads `rows` rows of `width` ids, every one below `limit` (the number of entries the ids
/// index, e.g. the dictionary's names). Error naming the file when it is not a regular file or
/// not a table, when its rows are of another width, when it holds another number of rows (made
/// for other training data), or when an id is `limit` or more (named with its row and column).
std::vector<std::uint32_t> readIdTable(const std::filesystem::path& file, std::size_t rows, std::size_t width,
                                       std::size_t limit);

/// Reads `rows` vectors of `dimension` values, every one finite. Error naming the file when it is
/// not a regular file or not a table, when it holds another number of values (vectors of other
/// data or of a model of another dimension) or a NaN or infinity.
std::vector<float> readVectorTable(const std::filesystem::path& file, std::size_t rows, std::size_t dimension);

}  // namespace linkscope::train
