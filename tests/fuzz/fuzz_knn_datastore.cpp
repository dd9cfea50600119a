// KnnDatastore::load (retrieval/knn_datastore.h): kNN-BioEL's datastore file, then a search, the
// concept vectors, the key list, and one key added and removed again on what it loaded.
//
// Like the sparse index, the file names its size at byte 12 and ends in a CRC-32: each input is
// read as given and again with both made right, so that the body's checks are fuzzed too.
//
// Counts are checked against the bytes left before allocation: no allocation of 256 MiB from
// 64 KiB, 1 GiB of RSS, 10 s per input. The harness itself allocates a query of the stored
// dimension only when the store holds at least one key (each key row is dimension floats of
// the file, so the file bounds it).
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include <zlib.h>

#include <vector>

#include "fuzz_support.h"
#include "retrieval/knn_datastore.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {
void readStore(const std::filesystem::path& file, const char* what) {
    fuzz::expectErrorOr(what, [&] {
        KnnDatastore store = KnnDatastore::load(file);
        (void)store.conceptVectors();
        (void)store.keys();
        for (const auto& entity : store.entities()) (void)store.findEntity(entity);
        if (store.size() == 0) return;
        std::vector<float> query(store.dimension(), 0.5f);
        (void)store.search(query, 4);
        const auto key = store.add(query, "MESH:D000001", KeyOrigin::Corrected, "fuzz");
        (void)store.info(key);
        (void)store.remove(key);
    });
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "knn.datastore";
    std::string bytes(fuzz::bytesOf(data, size));
    fuzz::writeFile(file, bytes);
    readStore(file, "KnnDatastore::load (as given)");
    if (bytes.size() >= 24) {
        fuzz::putU64(bytes, 12, bytes.size());
        const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size() - 4));
        fuzz::putU32(bytes, bytes.size() - 4, static_cast<std::uint32_t>(crc));
        fuzz::writeFile(file, bytes);
        readStore(file, "KnnDatastore::load (size and CRC-32 fixed)");
    }
    return 0;
}
