#pragma once
// Writing a corpus as BioC XML (the BioC DTD: collection / source / date / key / document / id /
// passage / infon / offset / text / annotation / location / relation), the way PubTator Central
// writes abstracts:
//
//   <document><id>PMID</id>
//     <passage><infon key="type">title</infon><offset>0</offset><text>title</text>
//       <annotation id="1"><infon key="type">Disease</infon>
//         <infon key="identifier">D001943</infon>
//         <location offset="22" length="13"/><text>breast cancer</text></annotation>
//     </passage>
//     <passage><infon key="type">abstract</infon><offset>len(title)+1</offset>...</passage>
//     <relation id="R1"><infon key="type">CID</infon>
//       <infon key="argument1">D009270</infon><infon key="argument2">D006973</infon></relation>
//   </document>
//
// Offsets and lengths count CHARACTERS (Unicode code points) of title + " " + abstract, as our
// Mention offsets and PubTator do. The BioC DTD leaves the unit to the key file; BioC-JSON and
// PubTator Central count characters, so a PTC file and ours agree.
//
// Everything a Document holds has a place, so nothing is lost:
//  - the link is the "identifier" infon (composites joined by '|' or '+', "-1" for CUI-less);
//    an unlinked mention (empty id column, see link_column.h) has no identifier infon;
//  - BC5CDR's individual mentions of a composite go to an "individual_mentions" infon ('|');
//  - annotations are numbered in the order of Document::mentions (the reader keeps that order);
//  - a mention is placed in the passage where it starts (BioC has no document-level mentions).
// Not kept: what only matters for writing PubTator byte for byte (an id column's stray spaces,
// an empty 7th column, blank lines around the documents).
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "corpus/corpus.h"

namespace linkscope {

/// (key, value) infons of one annotation.
using BioCInfons = std::vector<std::pair<std::string, std::string>>;

struct BioCWriteOptions {
    /// <source>; empty: "Linkscope export of " + the corpus name.
    std::string source;
    /// <date> (BioC writes yyyymmdd); empty: today in UTC. Set it for reproducible files.
    std::string date;
    /// <key>: the file describing the infons.
    std::string key = "linkscope-bioc.key";
    /// Infons added to the annotation of corpus.documents()[document].mentions[mention] after
    /// its own (a linker's score and candidates); unset: none.
    std::function<BioCInfons(std::size_t document, std::size_t mention)> extraInfons;
};

/// The whole collection as XML text. Throws Error when a mention cannot be placed (offsets that
/// failed validation in a lenient read) or a field cannot be written.
std::string formatBioC(const Corpus& corpus, const BioCWriteOptions& options = {});

/// Writes the collection through AtomicFileWriter; throws Error on failure.
void writeBioC(const Corpus& corpus, const std::filesystem::path& path, const BioCWriteOptions& options = {});

}  // namespace linkscope
