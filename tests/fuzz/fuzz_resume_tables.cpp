// The tables a checkpoint keeps what the objectives' last refresh computed in, as `train
// --resume` reads them back (train/checkpoint_tables.h): candidates.bin (entry ids, rows of a
// fixed width) and names.bin / entities.bin / context_targets.bin (vectors).
//
// Input: 6 bytes of parameters, then the table file. The parameters are what the run expects:
// rows (u16, little-endian), the width of a row of ids (u8), the number of entries the ids index
// (u16) and the vectors' dimension (u8). The file is read as an id table and as a vector table;
// what is accepted is then used as the objectives use it: every id indexes an array of that many
// entries, every vector is read whole (a miss is an AddressSanitizer report).
//
// Tables of tests are a few hundred bytes; 64 KiB, 512 MiB of RSS, no allocation of 64 MiB (the
// reader allocates only what the file holds), 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=512 -malloc_limit_mb=64 -timeout=10
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "train/checkpoint_tables.h"

using namespace linkscope;
using namespace linkscope::train;

namespace {

unsigned at(std::string_view bytes, std::size_t i) { return static_cast<unsigned char>(bytes[i]); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input = fuzz::bytesOf(data, size);
    if (input.size() < 6) return 0;
    const std::size_t rows = at(input, 0) | (at(input, 1) << 8);
    const std::size_t width = at(input, 2);
    const std::size_t limit = at(input, 3) | (at(input, 4) << 8);
    const std::size_t dimension = at(input, 5);
    const auto folder = fuzz::freshFolder("checkpoint");
    const auto file = folder / "candidates.bin";
    fuzz::writeFile(file, input.substr(6));

    fuzz::expectErrorOr("readIdTable", [&] {
        const auto ids = readIdTable(file, rows, width, limit);
        if (ids.size() != rows * width) std::abort();
        std::vector<std::uint8_t> entries(limit);
        unsigned sum = 0;
        for (const auto id : ids) sum += entries[id];
        (void)sum;
    });
    fuzz::expectErrorOr("readVectorTable", [&] {
        const auto vectors = readVectorTable(file, rows, dimension);
        if (vectors.size() != rows * dimension) std::abort();
        float sum = 0.0f;
        for (std::size_t row = 0; row < rows; ++row)
            for (std::size_t d = 0; d < dimension; ++d) sum += vectors[row * dimension + d];
        (void)sum;
    });
    return 0;
}
