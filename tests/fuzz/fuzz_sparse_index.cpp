// The sparse index file (retrieval/sparse_index_io.h): readSparseIndexInfo, then loadSparseIndex
// for the dictionary and settings its header names, then searches of the loaded index. Both
// versions: the exact form (version 1, postings) and the approximate one (version 2, rows and the
// 3-gram stage read in place from the mapped file); the seeds hold both (seed_writer.cpp).
//
// The format ends in a CRC-32 of everything before it and names its own size at byte 12, so a
// mutated input is nearly always refused at the checksum. Each input is therefore read twice:
// as it is, and with the size field and the CRC-32 made right (what a damaged file with a
// consistent checksum, or a file written by a buggy writer, looks like), so that the checks
// behind the checksum are fuzzed too.
//
// The body's counts are checked against the bytes left before anything is allocated: no
// allocation of 256 MiB may follow from 64 KiB of input, 1 GiB of RSS, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include <zlib.h>

#include <array>
#include <string_view>

#include "fuzz_support.h"
#include "retrieval/sparse_index_io.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {
void readIndex(const std::filesystem::path& file, const char* what) {
    fuzz::expectErrorOr(what, [&] {
        const SparseIndexFileInfo info = readSparseIndexInfo(file);
        const SparseIndex index = loadSparseIndex(file, info.fingerprint, info.settings);
        static constexpr std::array<std::string_view, 4> kQueries{"breast cancer", "a", "", "tumours of the pineal"};
        for (const auto query : kQueries) (void)index.search(query, 10);
        (void)index.search(std::span<const std::string_view>(kQueries), 3, 1);
    });
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "index.sparse";
    std::string bytes(fuzz::bytesOf(data, size));
    fuzz::writeFile(file, bytes);
    readIndex(file, "loadSparseIndex (as given)");
    if (bytes.size() >= 24) {
        fuzz::putU64(bytes, 12, bytes.size());
        const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size() - 4));
        fuzz::putU32(bytes, bytes.size() - 4, static_cast<std::uint32_t>(crc));
        fuzz::writeFile(file, bytes);
        readIndex(file, "loadSparseIndex (size and CRC-32 fixed)");
    }
    return 0;
}
