// CorpusChunkSource (corpus/corpus_chunk_source.h): a PubTator, BioC XML or BigBio file cut into
// chunks of documents without parsing it (DocumentChunkReader), each chunk parsed by the file's
// reader through an in-memory file, or a BioC JSON file read a document at a time
// (BioCJsonDocumentReader), and the file's N parts read one by one, as `link --shard` reads them.
// The first byte chooses the format (bits 0 and 6: PubTator, BioC, BigBio, BioC JSON), the number
// of parts (bits 1-2: 1 to 4) and the chunk size (bits 3-5: 4^k bytes); the rest is the file. When the whole file and every part are
// read without an error, the parts must hold exactly the whole file's documents.
//
// Limits as fuzz_pubtator's, fuzz_bioc's, fuzz_bigbio's and fuzz_bioc_json's (a chunk is parsed by
// those readers).
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: pubtator.dict
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "corpus/corpus_chunk_source.h"
#include "fuzz_support.h"

using namespace linkscope;

namespace {

// The PMIDs of part `part` of the file, read a chunk at a time.
std::multiset<std::string> readPart(const std::filesystem::path& file, CorpusFormat format, CorpusPart part,
                                    std::size_t chunkBytes) {
    std::multiset<std::string> pmids;
    CorpusChunkSource source(file, format, part, chunkBytes);
    CorpusChunk chunk;
    while (source.next(chunk))
        for (const auto& document : chunk.corpus.documents()) pmids.insert(document.pmid());
    (void)source.takeNotes();
    return pmids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t control = data[0];
    constexpr CorpusFormat kFormats[] = {CorpusFormat::PubTator, CorpusFormat::BioC, CorpusFormat::BigBio,
                                         CorpusFormat::BioCJson};
    const CorpusFormat format = kFormats[(control & 1) | ((control >> 5) & 2)];
    const std::size_t parts = 1 + ((control >> 1) & 3);
    const std::size_t chunkBytes = std::size_t{1} << (2 * ((control >> 3) & 7));
    static const auto file = fuzz::scratch() / "corpus";
    fuzz::writeFile(file, fuzz::bytesOf(data + 1, size - 1));

    std::multiset<std::string> whole;
    const bool wholeRead = fuzz::expectErrorOr("CorpusChunkSource (whole file)", [&] {
        whole = readPart(file, format, {0, 1}, chunkBytes);
    });
    std::multiset<std::string> fromParts;
    bool partsRead = true;
    for (std::size_t i = 0; i < parts; ++i)
        partsRead = fuzz::expectErrorOr("CorpusChunkSource (a part)",
                                        [&] {
                                            const auto pmids = readPart(file, format, {i, parts}, chunkBytes);
                                            fromParts.insert(pmids.begin(), pmids.end());
                                        }) &&
                    partsRead;
    // A PMID repeated across parts is kept in each (only a run drops its own repeats).
    if (wholeRead && partsRead &&
        std::set<std::string>(fromParts.begin(), fromParts.end()) !=
            std::set<std::string>(whole.begin(), whole.end())) {
        std::fprintf(stderr, "\n*** fuzz finding: %zu parts hold other documents than the whole file\n", parts);
        std::abort();
    }
    return 0;
}
