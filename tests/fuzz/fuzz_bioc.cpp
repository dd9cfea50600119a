// readBioC (corpus/bioc_reader.h): BioC XML as bioc_writer.h and PubTator Central write it.
//
// XML is verbose, so 64 KiB is a few documents. The reader bounds files at 2 GiB and holds them
// whole, so 1 GiB of RSS and no allocation of 256 MiB from 64 KiB are generous; 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: bioc.dict
#include "corpus/bioc_reader.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus.bioc.xml";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readBioC", [&] { readBioC(file); });
    return 0;
}
