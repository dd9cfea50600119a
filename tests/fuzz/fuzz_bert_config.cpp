// BertConfig::load (encoder/bert_config.h): a checkpoint's config.json, then validate() and
// parameterCount() on what it accepted.
//
// A config.json is about 1 KiB; 16 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=16384 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: json.dict
#include "encoder/bert_config.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "config.json";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("BertConfig::load", [&] {
        const auto config = encoder::BertConfig::load(file);
        (void)config.parameterCount();
        config.validate();
    });
    return 0;
}
