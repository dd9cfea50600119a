#pragma once
// Reading BioC JSON (BioC's data model written as JSON, as PubTator3's API and many taggers
// write it) into Documents: the files bioc_json_writer.h writes and PubTator3's export.
//
//   {"source": ..., "date": ..., "key": ..., "infons": {...},
//    "documents": [{"id": "PMID", "infons": {...},
//                   "passages": [{"offset": 0, "infons": {"type": "title"}, "text": "...",
//                                 "annotations": [{"id": "1", "infons": {"type": "Disease",
//                                                  "identifier": "MESH:D003920"}, "text": "...",
//                                                  "locations": [{"offset": 0, "length": 8}]}],
//                                 "relations": [...]}],
//                   "relations": [...]}]}
//
// The rules are BioC XML's (bioc_reader.h), one for one: a document is a title passage at
// offset 0 and at most one abstract passage at len(title) + 1; offsets and lengths count
// CHARACTERS; one location per annotation; the link is the "identifier" infon (also
// "Identifier" or "MESH"; ';' between gene ids is read as '|'; null means unlinked; a number is
// read as its digits); "individual_mentions" holds the parts of a composite; relations take
// their type from infon "type" (or "relation") and every other infon as an argument; annotations
// are ordered by their numeric ids when every id is a distinct number. PubTator3's array name
// "PubTator3" is read as "documents".
//
// Problems are ParseErrors naming the file and line: syntax, wrong types (a text that is not a
// string, an offset that is not a non-negative integer), annotations outside the text or whose
// text differs, passages that do not make a title + abstract, a NUL character in a text. What
// has no place in a Document (other infons and keys, document-level annotations' extra fields,
// relation nodes) is reported once per kind as a Diagnostic, never dropped silently.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/document_chunk_reader.h"
#include "corpus/left_out_tally.h"

namespace linkscope {

class BioCJsonScanner;

/// Parses one document object's JSON text (an element of the documents array), `line` being
/// the line of the file where it starts (errors name file:line). What has no place in the
/// Document is counted in `leftOut`.
Document parseBioCJsonDocument(std::string_view json, const std::string& file, std::size_t line, LeftOutTally& leftOut);

/// The collection's own fields, as far as they were read.
struct BioCJsonCollection {
    std::string source;
    std::string date;
    std::string key;
};

/// Reads a BioC JSON file one document at a time (for `link`, which streams).
/// Memory: one document's text (at most kMaxBioCJsonValueBytes) and its parsed tree, whatever
/// the file's size. A FIFO, device or folder is refused without waiting (util/input_file.h).
///
/// A part I of N (shards) holds the documents whose position key (BioCJsonScanner::Piece) lies
/// in [I*size/N, (I+1)*size/N), size being the file as stored, as DocumentChunkReader cuts the
/// other formats. A JSON collection cannot be entered in the middle: the documents before the
/// part are scanned, not parsed.
class BioCJsonDocumentReader {
public:
    explicit BioCJsonDocumentReader(const std::filesystem::path& path, CorpusPart part = {});
    ~BioCJsonDocumentReader();
    BioCJsonDocumentReader(const BioCJsonDocumentReader&) = delete;
    BioCJsonDocumentReader& operator=(const BioCJsonDocumentReader&) = delete;

    /// The next document of the part; nullopt at its end. The whole collection (one part) must
    /// have held at least one document (else ParseError).
    std::optional<Document> next();
    /// The JSON text of the part's documents returned so far: bytes and CRC-32 (zlib's).
    std::uint64_t bytesRead() const noexcept { return bytesRead_; }
    std::uint32_t crc32() const noexcept { return crc_; }
    /// How far the part is read, 0..1 (by the position keys).
    double fraction() const noexcept;
    /// source, date and key read so far (they usually come before the documents).
    const BioCJsonCollection& collection() const noexcept { return collection_; }
    /// One Diagnostic per kind of thing left out so far.
    std::vector<Diagnostic> diagnostics() const;
    const std::string& fileName() const noexcept;

private:
    void readMember(const std::string& key, const std::string& json, std::size_t line);

    std::unique_ptr<BioCJsonScanner> scanner_;
    BioCJsonCollection collection_;
    LeftOutTally leftOut_;
    std::size_t documents_ = 0;
    CorpusPart part_;
    std::uint64_t fileBytes_ = 0;
    std::uint64_t low_ = 0;   // position keys of the part: [low_, high_)
    std::uint64_t high_ = 0;  // UINT64_MAX for the last part
    std::uint64_t key_ = 0;   // of the latest document returned
    bool done_ = false;
    std::uint64_t bytesRead_ = 0;
    std::uint32_t crc_ = 0;
};

/// Reads one BioC JSON file (plain or .gz). Corpus::name is the file name without extensions.
/// A document id seen before keeps the first copy, as readPubTator does.
/// Memory: the corpus read, plus one document's text and tree at a time (BioCJsonDocumentReader).
Corpus readBioCJson(const std::filesystem::path& path);

}  // namespace linkscope
