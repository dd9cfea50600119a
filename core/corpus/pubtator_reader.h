#pragma once
// Reading PubTator files (NCBI Disease, BC5CDR, MedMentions), plain or .gz:
//   PMID|t|title
//   PMID|a|abstract
//   PMID<TAB>start<TAB>end<TAB>text<TAB>type<TAB>ids[<TAB>individual|mentions]
//   PMID<TAB>CID<TAB>chemical<TAB>disease
//   (blank line between documents)
// Every mention is checked against the document text. Problems are ParseErrors naming file and
// line; lenient mode turns offset problems into Diagnostics and keeps the mention, flagged.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

#include "corpus/corpus.h"

namespace linkscope {

struct PubTatorOptions {
    /// Offsets outside the text, start >= end or text that does not match the document become
    /// Diagnostics, and the mention is kept with offsetsValid == false. The shape of the file
    /// (columns, PMIDs, numbers, ids) is still checked strictly: a line the reader cannot
    /// understand is never guessed at.
    bool lenient = false;
    /// A file without documents gives an empty corpus instead of a "no documents" error.
    bool allowEmpty = false;
    /// Accept a mention text column that differs from the document only by whitespace around
    /// it (NCBI Disease train, PMID 10923035, writes '..." plus "  ' with two extra spaces).
    /// The offsets are right, so the mention is valid; a Diagnostic records it and the column
    /// is kept in Mention::paddedText. When false it is a text mismatch like any other.
    bool allowPaddedMentionText = true;
    /// Longest accepted line; a longer one is a ParseError instead of a memory hog.
    std::size_t maxLineBytes = std::size_t{64} << 20;
    /// Corpus name; empty: the file name without extensions (names joined by '+').
    std::string name;
};

/// Reads one file. Documents keep their file order; a repeated PMID keeps the first copy and is
/// reported in Corpus::duplicates and Corpus::diagnostics.
Corpus readPubTator(const std::filesystem::path& path, const PubTatorOptions& options = {});

/// Reads several files into one corpus, in the order given; a PMID already read from an
/// earlier file is a duplicate like any other. Each file must hold documents unless allowEmpty.
Corpus readPubTator(std::span<const std::filesystem::path> paths, const PubTatorOptions& options = {});

}  // namespace linkscope
