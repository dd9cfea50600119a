// readPmidList (corpus/pmid_list.h): MedMentions' corpus_pubtator_pmids_*.txt, one PMID a line.
//
// Lists are a few KiB; 16 KiB of input is plenty, 1 GiB of RSS, no allocation of 256 MiB, 10 s.
// fuzz-options: -max_len=16384 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "corpus/pmid_list.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus_pubtator_pmids_trng.txt";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readPmidList", [&] { readPmidList(file); });
    return 0;
}
