#pragma once
// A corpus read a chunk of whole documents at a time, whatever its format, so that a command's
// memory holds one chunk and not the corpus (linkscope-cli link):
//  - PubTator and BioC XML files (plain or gzip): DocumentChunkReader cuts the bytes, each chunk
//    is parsed by the file's own reader (raw_chunk_parser.h), and a part of N can be read alone;
//  - BigBio JSON lines (plain or gzip): as PubTator, a line being a document (parseBigBioChunk);
//  - BioC JSON (plain or gzip): BioCJsonDocumentReader, a document at a time, of a part too;
//  - a brat folder: its .ann files in file-name order (as readBrat), a chunk of file pairs at a
//    time; not split into parts.
// The documents are those the whole-file reader gives, in the same order: a PMID read a second
// time is left out and noted (the first copy is kept, as the readers do), which costs one PMID
// per document read. A file without documents is refused as the whole-file reader refuses it
// (when the whole file is read, not a part of it).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/corpus_format.h"
#include "corpus/document_chunk_reader.h"
#include "util/error.h"

namespace linkscope {

class BioCJsonDocumentReader;

struct CorpusChunk {
    Corpus corpus;
    bool atStart = false;  ///< the chunk starts the input (PubTator: its leading blank lines count)
    bool atEnd = false;    ///< the chunk ends the input (PubTator: its trailing blank lines count)
};

class CorpusChunkSource {
public:
    /// Error for a brat folder asked for a part of several.
    CorpusChunkSource(const std::filesystem::path& input, CorpusFormat format, CorpusPart part, std::size_t chunkBytes);
    ~CorpusChunkSource();
    CorpusChunkSource(const CorpusChunkSource&) = delete;
    CorpusChunkSource& operator=(const CorpusChunkSource&) = delete;

    /// The next chunk (it may hold no documents: repeated ones left out); false at the end.
    bool next(CorpusChunk& chunk);
    /// How far the input (or part) is read, 0..1.
    double fraction() const noexcept;
    /// What the readers noted since the last call (each message once).
    std::vector<Diagnostic> takeNotes();

    /// The bytes of the part read so far (decompressed) and their CRC-32 (BioC JSON: of its
    /// documents' JSON texts; brat: none).
    std::uint64_t bytesRead() const noexcept;
    std::uint32_t crc32() const noexcept;
    /// BioC: the bytes before the first document (DocumentChunkReader::header()).
    const std::string& header() const noexcept;
    std::size_t documents() const noexcept { return documents_; }

private:
    bool nextBrat(CorpusChunk& chunk);
    bool nextBioCJson(CorpusChunk& chunk);
    void keepNew(Corpus& corpus);
    void note(Diagnostic diagnostic);

    std::filesystem::path input_;
    CorpusFormat format_;
    CorpusPart part_;
    std::size_t chunkBytes_;
    std::unique_ptr<DocumentChunkReader> reader_;
    std::unique_ptr<BioCJsonDocumentReader> json_;
    std::vector<std::filesystem::path> annFiles_;  // brat
    std::size_t nextAnn_ = 0;
    bool gaveChunk_ = false;
    bool finished_ = false;
    std::size_t documents_ = 0;
    std::unordered_set<std::string> pmids_;
    std::unordered_set<std::string> notedMessages_;
    std::vector<Diagnostic> notes_;
};

}  // namespace linkscope
