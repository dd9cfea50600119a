#pragma once
// Reading BioC XML abstracts back into Documents: the files bioc_writer.h writes and PubTator
// Central's BioC export of abstracts.
//
// A document must be a title + abstract document: one passage at offset 0 (the title) and at
// most one more at offset len(title) + 1 (the abstract), which is what both write. Offsets and
// lengths are read as CHARACTERS (code points), as bioc_writer.h explains.
//
// Annotations: exactly one <location> each (discontinuous mentions have no place in a Mention),
// the mention type from infon "type", the link from infon "identifier" (also "Identifier", or
// BC5CDR's "MESH"; PTC's ';' between several gene ids is read as '|'); no identifier infon
// means an unlinked mention (empty id column, see link_column.h). Every annotation is checked
// against the document text like a PubTator mention line, and annotations are returned in the
// order of their numeric ids when every id is a distinct number (the writer numbers them in
// Document::mentions order), else in file order.
//
// Relations: infon "type" (or BC5CDR's "relation") names the type, every other infon, in file
// order, is an argument.
//
// Problems are ParseErrors naming the file and line: malformed XML (pugixml's byte position is
// turned into a line), missing or non-numeric offsets and lengths, annotations outside the text
// or whose text differs, passages that do not make a title + abstract. What has no place in a
// Document (other infons, relation nodes that point at annotations) is reported once per kind
// as a Diagnostic in Corpus::diagnostics, never dropped silently.
#include <filesystem>

#include "corpus/corpus.h"

namespace linkscope {

/// Reads one BioC XML file (plain or .gz). Corpus::name is the file name without extensions.
/// A document id seen before keeps the first copy, as readPubTator does.
/// Memory: within 16 times the decompressed text (at most 2 GiB of it, refused beyond as it is
/// read): the text is held once and parsed in place, a newline index takes an eighth of it, and
/// a file whose XML tree would take more than 12 bytes per byte of text is refused before the
/// tree is built. A single line longer than the line reader's bound (256 MiB) is refused.
/// A gzip file's text is at most kMaxGzipExpansion times the gzip (or kGzipTextAlwaysAllowed;
/// util/text_file.h), refused as it is read: a small gzip bomb costs what its cap holds.
/// A FIFO, device or folder is refused without waiting (util/input_file.h).
Corpus readBioC(const std::filesystem::path& path);

}  // namespace linkscope
