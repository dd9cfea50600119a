// readBioCJson (corpus/bioc_json_reader.h): BioC JSON as bioc_json_writer.h and PubTator3 write it.
//
// The reader holds one document at a time (at most 64 MiB of text) and its parsed tree, so
// 1 GiB of RSS and no allocation of 256 MiB from 64 KiB are generous; 10 s per input.
// What is read is written again and read back: the same documents and mentions.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "corpus/bioc_json_reader.h"
#include "corpus/bioc_json_writer.h"
#include "corpus_round_trip.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus.bioc.json";
    static const auto again = fuzz::scratch() / "again.bioc.json";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readBioCJson", [&] {
        const Corpus corpus = readBioCJson(file);
        fuzz::requireCleanTexts("readBioCJson", corpus);
        BioCWriteOptions options;
        options.date = "20260101";
        writeBioCJson(corpus, again, options);
        fuzz::requireReadBack("readBioCJson", corpus, readBioCJson(again), true);
    });
    return 0;
}
