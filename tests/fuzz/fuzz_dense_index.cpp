// The FAISS payload of a dense index file (retrieval/dense_index.h). The file's own header, size
// field and CRC-32 stop nearly every mutated file before FAISS sees it; what lies behind them
// (a crafted file with its CRC resealed) is first walked by faissPayloadProblem
// (retrieval/faiss_payload_check.h), which must refuse every payload whose declared sizes exceed
// the bytes it has, before faiss::read_index would allocate by them. This target fuzzes that walk:
// byte 0 is the index kind (mod 3), bytes 1-2 the dimension (little-endian, mod 64, plus 1), the
// rest the payload.
//
// FAISS's own reader behind the walk is not fuzzed here: the fuzz build has neither LibTorch nor
// OpenMP for clang (Debian's FAISS is built with GCC's libgomp; clang-16 would need libomp-16-dev
// and two OpenMP runtimes in one process). test_retrieval_dense loads crafted payloads of each
// kind through the walk, FAISS and the structural checks (craftedPayloadsAreRefusedBeforeSearch).
//
// The walk reads forward and allocates only its error messages: 64 KiB inputs, 512 MiB of RSS
// (ASan's own shadow and quarantine included), no allocation of 16 MiB, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=512 -malloc_limit_mb=16 -timeout=10
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fuzz_support.h"
#include "retrieval/faiss_payload_check.h"

using namespace linkscope;
using namespace linkscope::retrieval;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const auto kind = static_cast<DenseIndexKind>(data[0] % 3);
    const std::uint64_t dimension =
        (static_cast<std::uint64_t>(data[1]) | static_cast<std::uint64_t>(data[2]) << 8) % 64 + 1;
    const std::string payload(fuzz::bytesOf(data + 3, size - 3));
    std::istringstream in(payload);
    const auto problem = faissPayloadProblem(in, payload.size(), kind, dimension);
    if (std::getenv("LINKSCOPE_FUZZ_VERBOSE"))
        std::fprintf(stderr, "faissPayloadProblem: %s\n", problem ? problem->c_str() : "accepted");
    return 0;
}
