// SpellingMap::load (text/spelling_map.h): misspelling||correction per line (BioSyn's
// ncbi-spell-check.txt), then a lookup.
//
// The loader refuses lines over 64 KiB; inputs up to 72 KiB can reach that limit. Memory and
// time as for the other line readers: 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=73728 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: kb.dict
#include "fuzz_support.h"
#include "text/spelling_map.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "spell-check.txt";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("SpellingMap::load", [&] {
        std::vector<Diagnostic> diagnostics;
        const auto map = text::SpellingMap::load(file, &diagnostics);
        (void)map.find("hemmorhage");
    });
    return 0;
}
