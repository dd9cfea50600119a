// readPubTator (corpus/pubtator_reader.h): NCBI Disease, BC5CDR and MedMentions corpora, plain or
// gzip. Each input is read strictly, then leniently (allowEmpty, offsets as diagnostics) as the
// same file given twice, so that the second copy's documents are all duplicates.
//
// Corpus lines are short; 64 KiB holds dozens of documents and a line past the reader's own
// limits is not reachable at that size anyway. A reader should need a small multiple of its input:
// 1 GiB of RSS (ASan's quarantine included) and no single allocation of 256 MiB or more
// from 64 KiB of input (that would be a size taken on trust). 10 s per input catches quadratic
// work (a linear pass over 64 KiB takes milliseconds, even instrumented).
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: pubtator.dict
#include <array>

#include "corpus/pubtator_reader.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus.txt";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readPubTator (strict)", [&] { readPubTator(file); });
    fuzz::expectErrorOr("readPubTator (lenient, twice)", [&] {
        PubTatorOptions options;
        options.lenient = true;
        options.allowEmpty = true;
        const std::array<std::filesystem::path, 2> twice{file, file};
        readPubTator(twice, options);
    });
    return 0;
}
