// readMentionFacts (eval/mention_groups.h): the group fields of a per-mention file (seen,
// homonym-affected, composite, abbreviation, type) that `compare` and the evaluation dock's
// "All runs" page read for their per-group rows.
//
// As the per-mention reader: 64 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include "eval/mention_groups.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "per-mention-facts.jsonl";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readMentionFacts", [&] { eval::readMentionFacts(file); });
    return 0;
}
