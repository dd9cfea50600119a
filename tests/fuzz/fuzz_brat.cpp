// readBrat (corpus/brat_reader.h): a brat standoff folder. The input is PMID.txt, a NUL, then
// PMID.ann (no NUL: the whole input is the .ann, without a .txt beside it).
//
// A document's text and standoff lines fit in a few KiB; 64 KiB, 1 GiB of RSS, no allocation of
// 256 MiB and 10 s per input as for the other corpus readers.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: brat.dict
#include "corpus/brat_reader.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto parts = fuzz::splitParts(fuzz::bytesOf(data, size), 2);
    const auto folder = fuzz::freshFolder("brat");
    if (parts.size() == 2) {
        fuzz::writeFile(folder / "12345.txt", parts[0]);
        fuzz::writeFile(folder / "12345.ann", parts[1]);
    } else {
        fuzz::writeFile(folder / "12345.ann", parts[0]);
    }
    fuzz::expectErrorOr("readBrat", [&] { readBrat(folder); });
    return 0;
}
