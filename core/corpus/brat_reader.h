#pragma once
// Reading BRAT standoff back into Documents: the files brat_writer.h writes, and brat files of
// the same shape (one PMID.txt whose first line is the title and the rest the abstract).
//
// Read from the .ann: text-bound annotations "T" (one span each: a discontinuous span has no
// place in a Mention), normalizations "N" (their DB:ID as brat_writer.h spells it, in order:
// an alternative list; "id:" and "CUI-less:" are undone, other databases canonicalised), and
// the attribute "A<TAB>IdJoin T<k> Conjunction". A text-bound annotation without N lines is an
// unlinked mention (empty id column). Other lines brat knows (relations R, events E, other
// attributes A/M, notes #, equivalences *) have no place in a Document: each kind is reported
// once per file as a Diagnostic, with its count, never dropped silently.
//
// Every mention is checked against the document text (title + " " + abstract, the .txt's first
// "\n" standing for the " "). Malformed lines, unknown targets, offsets outside the text or text
// that differs are ParseErrors naming the file and line.
#include <filesystem>
#include <vector>

#include "corpus/corpus.h"
#include "util/error.h"

namespace linkscope {

/// Reads PMID.ann and PMID.txt beside it (the PMID is the file name). A .txt of one line is a
/// title-only document. Diagnostics are appended to `diagnostics`.
Document readBratDocument(const std::filesystem::path& annFile, std::vector<Diagnostic>& diagnostics);

/// Reads every *.ann of a folder, in file-name order (brat keeps no document order). A .txt
/// without its .ann is reported as a Diagnostic. Throws ParseError when the folder holds no .ann.
Corpus readBrat(const std::filesystem::path& folder);

}  // namespace linkscope
