// readBigBio (corpus/bigbio_reader.h): BigBio KB schema JSON lines as bigbio_writer.h and the
// BigBio loaders write them.
//
// The reader holds one line (at most 64 MiB) and its parsed tree, so 1 GiB of RSS and no
// allocation of 256 MiB from 64 KiB are generous; 10 s per input. What is read is written again
// and read back: the same documents and mentions.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "corpus/bigbio_reader.h"
#include "corpus/bigbio_writer.h"
#include "corpus_round_trip.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus.bigbio.jsonl";
    static const auto again = fuzz::scratch() / "again.bigbio.jsonl";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readBigBio", [&] {
        const Corpus corpus = readBigBio(file);
        fuzz::requireCleanTexts("readBigBio", corpus);
        (void)writeBigBio(corpus, again);
        fuzz::requireReadBack("readBigBio", corpus, readBigBio(again), false);
    });
    return 0;
}
