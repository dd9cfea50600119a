#pragma once
// Reading a PubTator, BioC XML or BigBio JSON lines file (plain or gzip) as chunks of whole
// documents, without parsing them, so that a command can parse, process and write one chunk at a time (memory: one
// chunk, whatever the file's size), and so that N tasks can each take one part of a file.
//
// Where a document starts:
//  - PubTator: at a title line ("PMID|t|...", pubtator::classify), the one line that always
//    starts a document; blank lines before it stay with the document before.
//  - BioC XML: at "<document" followed by '>', '/' or white space. What comes before the first
//    one is the collection's header (declaration, <collection>, <source>, <date>, <key>, infons);
//    what follows the last document (the closing tags) ends the last chunk. A "<document" inside
//    a comment or a CDATA section is taken for a start too (BioC files hold none).
//  - BigBio JSON lines: at every line start (a document is a line; a blank line is none). A line
//    longer than kMaxBigBioLineBytes is refused before more of it is held.
//
// Parts (sharding): every document start d after the first byte of the file has a position key:
// its byte offset in a plain file; in a gzip file the compressed bytes read when the block
// holding d was decompressed (zlib's gzoffset, the same for every reader that reads the file
// with the same block size). Part I of N holds the documents whose key lies in
// [I*size/N, (I+1)*size/N) (size: the file as stored); part 0 also holds what comes before its
// first document (PubTator's leading blank lines, BioC's header), the last part what follows the
// last document. The parts cover the file, in order, without overlap, and a part may be empty.
// A plain file is entered by seeking: a task reads only its part (and a BioC header). A gzip
// file cannot be entered in the middle: a task decompresses from the start to the end of its
// part, looking only for document starts before its own.
//
// Lines: "\n" or "\r\n" end a line. A PubTator file whose lines end in a lone "\r" has no
// document start that this reader sees, and is read as one chunk (the parser handles it).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus_format.h"

namespace linkscope {

/// Part `index` (0-based) of `count`.
struct CorpusPart {
    std::size_t index = 0;
    std::size_t count = 1;
};

/// Whole documents of the input, as bytes.
struct RawChunk {
    std::string text;
    std::uint64_t firstByte = 0;  ///< offset of text's first byte in the (decompressed) input
    /// 1-based line of the input where text starts; 0 when not known (a plain file's part
    /// entered by seeking does not count the lines before it).
    std::size_t firstLine = 0;
    bool atStart = false;  ///< text starts at the input's first byte
    bool atEnd = false;    ///< text ends at the input's end
};

class DocumentChunkReader {
public:
    /// Opens `path` (util/input_file.h: a FIFO, device or folder is refused) for `format`
    /// (PubTator, BioC or BigBio; another is an Error). Chunks are cut at the first document start at
    /// least `chunkBytes` after the chunk's start. BioC: reads the header (at most 64 MiB).
    DocumentChunkReader(const std::filesystem::path& path, CorpusFormat format, CorpusPart part,
                        std::size_t chunkBytes);
    ~DocumentChunkReader();
    DocumentChunkReader(const DocumentChunkReader&) = delete;
    DocumentChunkReader& operator=(const DocumentChunkReader&) = delete;

    /// The next chunk of the part; false when the part is read. Throws ParseError for a damaged
    /// gzip stream or a read error.
    bool next(RawChunk& chunk);

    /// BioC: the bytes before the first document (the whole file when it holds none).
    const std::string& header() const noexcept { return header_; }
    bool compressed() const noexcept { return compressed_; }
    /// The size of the file as stored.
    std::uint64_t fileBytes() const noexcept { return fileBytes_; }
    /// How far the part is read, 0..1 (by the position keys).
    double fraction() const noexcept;
    /// CRC-32 (zlib's) and number of the part's bytes returned so far (decompressed).
    std::uint32_t crc32() const noexcept { return crc_; }
    std::uint64_t bytesReturned() const noexcept { return bytesReturned_; }

private:
    class Source;
    bool fill();  // appends a block to buffer_; false at the end of the file
    std::uint64_t keyAt(std::uint64_t offset) const;
    std::optional<std::uint64_t> nextDocumentStart(std::uint64_t from);  // absolute offset, > 0
    bool isDocumentStartAt(std::uint64_t lineStart);                     // PubTator, BigBio
    void start();
    void dropBefore(std::uint64_t offset);
    void readHeader(const std::filesystem::path& path);

    CorpusFormat format_;
    CorpusPart part_;
    std::size_t chunkBytes_;
    std::unique_ptr<Source> source_;
    std::string name_;
    bool compressed_ = false;
    std::uint64_t fileBytes_ = 0;
    std::uint64_t low_ = 0;   // keys of the part: [low_, high_)
    std::uint64_t high_ = 0;  // UINT64_MAX for the last part
    std::string header_;

    std::string buffer_;             // input bytes from bufferStart_ on
    std::uint64_t bufferStart_ = 0;  // absolute offset of buffer_[0]
    bool eof_ = false;
    struct Block {
        std::uint64_t begin;  // absolute offset of its first byte
        std::uint64_t key;
    };
    std::vector<Block> blocks_;  // of the gzip blocks in buffer_

    bool started_ = false;
    bool done_ = false;
    std::uint64_t position_ = 0;  // start of the next chunk
    std::uint64_t scanned_ = 0;   // document starts before this are known
    bool linesKnown_ = false;     // the buffer was read from the file's start
    std::size_t lineOfBufferStart_ = 1;
    std::uint64_t positionKey_ = 0;
    std::uint64_t startKey_ = 0;
    std::uint32_t crc_ = 0;
    std::uint64_t bytesReturned_ = 0;
};

}  // namespace linkscope
