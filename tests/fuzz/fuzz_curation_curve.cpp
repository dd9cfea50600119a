// readCurationCurve (ui/curation_curve_reader.h): the CSV of `simulate-curation --csv` that the
// evaluation dock's curation curve plots. The reader lives in ui but uses no Qt, so its source
// is compiled into this target directly (the fuzz build has no ui library).
//
// 64 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "curation_curve_reader.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "curation-curve.csv";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readCurationCurve", [&] { ui::readCurationCurve(file); });
    return 0;
}
