#pragma once
// One annotated mention and one document-level relation, as a PubTator file states them.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "corpus/concept_id.h"

namespace linkscope {

struct Mention {
    /// Offsets in CHARACTERS (Unicode code points) of Document::text(), end exclusive: PubTator
    /// counts characters, so bytes and offsets only coincide for ASCII documents.
    std::size_t start = 0;
    std::size_t end = 0;
    /// The mention as it appears in the document at [start, end).
    std::string text;
    /// The type column: "Disease", "SpecificDisease", "Chemical", or MedMentions' semantic
    /// types such as "T047" or "T047,T191".
    std::string type;
    /// The UMLS semantic types when the type column is a list of TUIs ("T047,T191"), else empty.
    std::vector<std::string> semanticTypes;
    /// The parsed id column, canonical ids (see concept_id.h).
    ConceptIdList ids;
    /// The id column exactly as written (" D007153" keeps its space), so that writing the file
    /// back reproduces it byte for byte.
    std::string idColumn;
    /// BC5CDR's 7th column: the parts of a composite mention ("Ocular toxicity|auditory toxicity").
    std::vector<std::string> individualMentions;
    /// True when the line had a 7th column at all; BC5CDR often writes it empty (a trailing TAB).
    bool hasIndividualMentionColumn = false;
    /// Set only when the file's text column differs from `text` by surrounding whitespace
    /// (NCBI Disease has one such line): the column as written, kept for byte-exact writing.
    std::optional<std::string> paddedText;
    /// 1-based line of the mention in its source file (0 for mentions built in memory).
    std::size_t sourceLine = 0;
    /// False when the offsets failed validation (out of the text, empty, or text mismatch) and
    /// the mention was kept by a lenient reader; `text` is then the column as written.
    bool offsetsValid = true;
};

/// A document-level relation line such as BC5CDR's "PMID<TAB>CID<TAB>chemical<TAB>disease".
struct Relation {
    std::string type;                       ///< "CID"
    std::vector<std::string> arguments;     ///< canonical ids ("MESH:D008750")
    std::vector<std::string> rawArguments;  ///< the columns as written, for byte-exact writing
    std::size_t sourceLine = 0;
};

/// Same annotation content (everything but the source line).
bool sameContent(const Mention& a, const Mention& b) noexcept;
bool sameContent(const Relation& a, const Relation& b) noexcept;
bool sameIds(const ConceptIdList& a, const ConceptIdList& b) noexcept;

}  // namespace linkscope
