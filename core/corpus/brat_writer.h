#pragma once
// Writing a corpus as BRAT standoff: for each document, PMID.txt and PMID.ann in one folder.
//
//   PMID.txt   title "\n" abstract "\n"   (title-only documents: title "\n")
//   PMID.ann   T1<TAB>Disease 22 35<TAB>breast cancer
//              N1<TAB>Reference T1 MESH:D001943<TAB>breast cancer
//              A1<TAB>IdJoin T5 Conjunction
//
// Offsets: brat counts characters (code points) of the .txt, our Mention offsets count
// characters of title + " " + abstract. The .txt puts "\n" where the text has " ", so every
// offset is the same number in both; the final "\n" comes after all of them.
//
// Links are normalizations ("N" lines, one per id, in the order of the id list) whose
// reference is brat's DB:ID: canonical ids already read so (MESH:D001943, OMIM:312080,
// UMLS:C0011849); an id without a prefix is written "id:<id>" and the CUI-less marker "-1" as
// "CUI-less:-1" (lower-case database names, which a canonical id never has, so the reader can
// tell them apart). An unlinked mention (empty id column, see link_column.h) has no N line.
// Several N lines are alternatives ("|"); a conjunction ("+") adds the attribute line
// "A<n><TAB>IdJoin T<k> Conjunction". The N line's text is the mention text (no knowledge base
// is at hand to give a preferred name).
//
// No annotation.conf is written: the types, the IdJoin attribute and the databases are the
// corpus' own, and brat shows undeclared ones with a warning; write a conf for brat's editor
// if needed.
//
// What brat cannot hold is left out and COUNTED in the returned summary, never dropped
// silently: document-level relations (BC5CDR's CID lines are between concept ids, brat's "R"
// relations between text-bound annotations, and a comment is no relation), and BC5CDR's lists
// of individual mentions of a composite (they have no offsets to become text-bound spans).
#include <cstddef>
#include <filesystem>
#include <string>

#include "corpus/corpus.h"

namespace linkscope {

struct BratExportSummary {
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::size_t normalizations = 0;                 ///< N lines
    std::size_t relationsLeftOut = 0;               ///< document-level relations brat cannot hold
    std::size_t individualMentionListsLeftOut = 0;  ///< mentions whose individual-mention list was not written

    /// True when the export holds everything the corpus had.
    bool complete() const noexcept { return relationsLeftOut == 0 && individualMentionListsLeftOut == 0; }
};

/// The two files of one document.
struct BratFiles {
    std::string text;         ///< PMID.txt
    std::string annotations;  ///< PMID.ann
};

/// Formats one document; adds what it wrote and left out to `summary`. Throws Error when a field
/// cannot be written (whitespace in a type, a tab or line break in a mention text, a line break
/// in the title, an id brat cannot spell, a mention whose offsets failed validation).
BratFiles formatBrat(const Document& document, BratExportSummary& summary);

/// Writes PMID.txt and PMID.ann for every document into `folder` (created when missing; files
/// of the same names are replaced, each through AtomicFileWriter). Throws Error on failure.
BratExportSummary writeBrat(const Corpus& corpus, const std::filesystem::path& folder);

/// The same into (a folder inside) an AtomicFolder's staging folder (util/atomic_folder.h): each
/// file written with writeStagedFile, synced once by the folder's commit() rather than one by one.
BratExportSummary writeBratStaged(const Corpus& corpus, const std::filesystem::path& stagedFolder);

}  // namespace linkscope
