// readDecisionLog (curation/decision_log.h): the curation decisions log, one JSON object a line.
//
// A line is a few hundred bytes; 64 KiB, 1 GiB of RSS, no allocation of 256 MiB (nlohmann holds
// 10 to 20 bytes per byte of JSON, far below that), 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include "curation/decision_log.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "decisions.jsonl";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readDecisionLog", [&] { curation::readDecisionLog(file); });
    return 0;
}
