// readPerMention (eval/per_mention_reader.h): `linkscope-cli eval --per-mention` files, one JSON
// object a line, read back for `compare` and the evaluation dock.
//
// As the decisions log: 64 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include "eval/per_mention_reader.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "per-mention.jsonl";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readPerMention", [&] { eval::readPerMention(file); });
    return 0;
}
