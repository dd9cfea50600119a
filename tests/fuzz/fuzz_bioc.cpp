// readBioC (corpus/bioc_reader.h): BioC XML as bioc_writer.h and PubTator Central write it.
//
// XML is verbose, so 64 KiB is a few documents. The reader bounds files at 2 GiB and holds them
// whole, so 1 GiB of RSS and no allocation of 256 MiB from 64 KiB are generous; 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: bioc.dict
#include <cstdio>
#include <cstdlib>

#include "corpus/bioc_reader.h"
#include "fuzz_support.h"
#include "util/utf8.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus.bioc.xml";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readBioC", [&] {
        // What is read is text: character references are decoded by the reader's own checks, so
        // neither a NUL (a title cut short) nor invalid UTF-8 can come out of them.
        const Corpus corpus = readBioC(file);
        for (const Document& document : corpus.documents())
            for (const std::string* text : {&document.title, &document.abstract})
                if (text->find('\0') != std::string::npos || utf8::firstInvalidByte(*text)) {
                    std::fprintf(stderr, "readBioC: document %s holds a NUL or invalid UTF-8\n",
                                 document.pmid().c_str());
                    std::abort();
                }
    });
    return 0;
}
