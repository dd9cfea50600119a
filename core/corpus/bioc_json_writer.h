#pragma once
// Writing a corpus as BioC JSON, the layout PubTator3's API writes, one document per line:
//
//   {"source":"...","date":"yyyymmdd","key":"linkscope-bioc.key","infons":{},"documents":[
//   {"id":"PMID","infons":{},"passages":[{"infons":{"type":"title"},"offset":0,"text":"...",
//     "sentences":[],"annotations":[{"id":"1","infons":{"type":"Disease","identifier":"D001943"},
//     "text":"breast cancer","locations":[{"offset":22,"length":13}]}],"relations":[]},...],
//    "annotations":[],"relations":[{"id":"R1","infons":{"type":"CID","argument1":"D009270",
//    "argument2":"D006973"},"nodes":[]}]},
//   ...
//   ]}
//
// The content is BioC XML's (bioc_writer.h), one for one, with the same options: offsets count
// characters; the link is the "identifier" infon (none for an unlinked mention); composites'
// parts go to "individual_mentions"; annotations are numbered in Document::mentions order and
// placed in the passage where they start; BioCWriteOptions::extraInfons adds a linker's infons
// (string values). Not kept, as in BioC XML: what only PubTator needs for byte-exact writing, and
// the infons and keys a reader reported as left out (a Document has no place for them).
//
// For streaming (`link`, shards): the file is bioCJsonHeader(), then each document's
// formatBioCJsonDocument() separated by kBioCJsonDocumentSeparator, then kBioCJsonFooter.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "corpus/bioc_writer.h"  // BioCWriteOptions, BioCInfons

namespace linkscope {

/// The collection up to and including the opening '[' of its documents, and a line break.
std::string bioCJsonHeader(std::string_view corpusName, const BioCWriteOptions& options = {});
/// One document object on one line (no separator, no line break). `extraInfons(mention)` adds
/// infons to the annotation of document.mentions[mention]; unset: none. Throws Error when a
/// mention cannot be placed (offsets that failed validation in a lenient read), a PMID is
/// malformed or a field holds a NUL character.
std::string formatBioCJsonDocument(const Document& document,
                                   const std::function<BioCInfons(std::size_t mention)>& extraInfons = {});
inline constexpr std::string_view kBioCJsonDocumentSeparator = ",\n";
/// Closes the documents array and the collection (after a line break).
inline constexpr std::string_view kBioCJsonFooter = "\n]}\n";

/// The whole collection as text.
std::string formatBioCJson(const Corpus& corpus, const BioCWriteOptions& options = {});

/// Writes the collection through AtomicFileWriter, one document at a time; throws Error.
void writeBioCJson(const Corpus& corpus, const std::filesystem::path& path, const BioCWriteOptions& options = {});

}  // namespace linkscope
