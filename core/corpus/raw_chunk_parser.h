#pragma once
// Parsing a chunk of documents that DocumentChunkReader cut from a file with the file's own
// reader (readPubTator, readBioC), so that a chunk is read by exactly the rules of the whole file:
// the chunk's bytes are handed to the reader as an anonymous in-memory file. Errors and
// diagnostics name the input file and its line (line 0, with the byte offset of the chunk in
// the message, where the chunk's line is not known: a part entered by seeking).
#include <string>

#include "corpus/corpus.h"
#include "corpus/document_chunk_reader.h"

namespace linkscope {

/// The documents of a PubTator chunk (allowEmpty: a chunk of blank lines gives none). Its
/// layout's leading blank lines count when the chunk starts the file, its trailing ones when it
/// ends it.
Corpus parsePubTatorChunk(const RawChunk& chunk, const std::string& fileName);

/// The documents of a BioC XML chunk: `header` (DocumentChunkReader::header()), the chunk, and
/// "</collection>" unless the chunk ends the file, parsed as one collection.
Corpus parseBioCChunk(const std::string& header, const RawChunk& chunk, const std::string& fileName);

/// The documents of a BigBio JSON lines chunk, read as readBigBio reads a file (a chunk of blank
/// lines gives none).
Corpus parseBigBioChunk(const RawChunk& chunk, const std::string& fileName);

}  // namespace linkscope
