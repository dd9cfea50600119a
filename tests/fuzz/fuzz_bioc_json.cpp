// readBioCJson (corpus/bioc_json_reader.h): BioC JSON as bioc_json_writer.h and PubTator3 write it.
//
// The reader holds one document at a time (at most 64 MiB of text) and its parsed tree, so
// 1 GiB of RSS and no allocation of 256 MiB from 64 KiB are generous; 10 s per input.
// What is read is written again and read back: the same documents and mentions.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include <cstdio>
#include <cstdlib>

#include "corpus/bioc_json_reader.h"
#include "corpus/bioc_json_writer.h"
#include "fuzz_support.h"
#include "util/utf8.h"

using namespace linkscope;

namespace {

[[noreturn]] void fault(const char* what, const Document& document) {
    std::fprintf(stderr, "readBioCJson: document %s: %s\n", document.pmid().c_str(), what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "corpus.bioc.json";
    static const auto again = fuzz::scratch() / "again.bioc.json";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("readBioCJson", [&] {
        const Corpus corpus = readBioCJson(file);
        for (const Document& document : corpus.documents())
            for (const std::string* text : {&document.title, &document.abstract})
                if (text->find('\0') != std::string::npos || utf8::firstInvalidByte(*text))
                    fault("a NUL or invalid UTF-8 in a text", document);
        BioCWriteOptions options;
        options.date = "20260101";
        writeBioCJson(corpus, again, options);
        const Corpus back = readBioCJson(again);
        if (back.size() != corpus.size()) fault("a different number of documents read back", corpus.documents()[0]);
        for (std::size_t d = 0; d < corpus.size(); ++d) {
            const Document& a = corpus.documents()[d];
            const Document& b = back.documents()[d];
            if (a.pmid() != b.pmid() || a.title != b.title || a.abstract != b.abstract ||
                a.mentions.size() != b.mentions.size() || a.relations.size() != b.relations.size())
                fault("read back differently", a);
            for (std::size_t m = 0; m < a.mentions.size(); ++m)
                if (a.mentions[m].start != b.mentions[m].start || a.mentions[m].end != b.mentions[m].end ||
                    a.mentions[m].ids.ids != b.mentions[m].ids.ids)
                    fault("a mention read back differently", a);
        }
    });
    return 0;
}
