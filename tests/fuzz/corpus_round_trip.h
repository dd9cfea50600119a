#pragma once
// What the corpus-format fuzz targets check of a corpus their reader accepted (fuzz_bioc_json,
// fuzz_bigbio): its texts are NUL-free UTF-8, and written by the format's writer and read back it
// holds the same documents and mentions. A difference aborts, naming the reader and the document,
// so that libFuzzer keeps the input.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "corpus/corpus.h"
#include "util/utf8.h"

namespace linkscope::fuzz {

[[noreturn]] inline void corpusFault(const char* reader, const char* what, const Document& document) {
    std::fprintf(stderr, "%s: document %s: %s\n", reader, document.pmid().c_str(), what);
    std::abort();
}

inline void requireCleanTexts(const char* reader, const Corpus& corpus) {
    for (const Document& document : corpus.documents())
        for (const std::string* text : {&document.title, &document.abstract})
            if (text->find('\0') != std::string::npos || utf8::firstInvalidByte(*text))
                corpusFault(reader, "a NUL or invalid UTF-8 in a text", document);
}

/// `back` is `corpus` written and read again; `relations`: whether the format keeps them all.
inline void requireReadBack(const char* reader, const Corpus& corpus, const Corpus& back, bool relations) {
    if (back.size() != corpus.size())
        corpusFault(reader, "a different number of documents read back", corpus.documents()[0]);
    for (std::size_t d = 0; d < corpus.size(); ++d) {
        const Document& a = corpus.documents()[d];
        const Document& b = back.documents()[d];
        if (a.pmid() != b.pmid() || a.title != b.title || a.abstract != b.abstract ||
            a.mentions.size() != b.mentions.size() || (relations && a.relations.size() != b.relations.size()))
            corpusFault(reader, "read back differently", a);
        for (std::size_t m = 0; m < a.mentions.size(); ++m)
            if (a.mentions[m].start != b.mentions[m].start || a.mentions[m].end != b.mentions[m].end ||
                a.mentions[m].ids.ids != b.mentions[m].ids.ids)
                corpusFault(reader, "a mention read back differently", a);
    }
}

}  // namespace linkscope::fuzz
