#pragma once
// Reading the BigBio KB schema as JSON lines (one document per line, what xMEN, Flair and the
// BigBio loaders write and read) into Documents:
//
//   {"id": "0", "document_id": "PMID",
//    "passages": [{"id": "0_title", "type": "title", "text": ["..."], "offsets": [[0, 42]]},
//                 {"id": "0_abstract", "type": "abstract", "text": ["..."], "offsets": [[43, 900]]}],
//    "entities": [{"id": "0_T1", "type": "Disease", "text": ["breast cancer"], "offsets": [[22, 35]],
//                  "normalized": [{"db_name": "MESH", "db_id": "D001943"}]}],
//    "events": [], "coreferences": [],
//    "relations": [{"id": "0_R1", "type": "CID", "arg1_id": "0_T3", "arg2_id": "0_T1", "normalized": []}]}
//
// The document's PMID is "document_id" (its "id" when that is empty or missing). Passages make a
// title + abstract document as in BioC: the first at [0, len(title)], a second (when there is
// one) at [len(title) + 1, ...], each with one text and one offset pair whose length is the
// text's. Offsets count CHARACTERS (code points), as Python and Linkscope do.
//
// Entities: one offset pair each (discontinuous entities have no place in a Mention; refused),
// checked against the text; the mention type is "type". "normalized" is the link: each
// {db_name, db_id} is read as the id "db_name:db_id" (a db_id that already starts with its
// db_name and ':' as it is; an empty db_name: db_id alone), canonical as concept_id.h spells it
// ("mesh" + "D001943" -> MESH:D001943, written back in the short form D001943 as the other
// readers do); several entries are alternatives ('|'), or a conjunction ('+') when the entity's
// "linkscope_join" is "+" (bigbio_writer.h); db_id "-1" is CUI-less; an empty list is an
// unlinked mention.
//
// Relations between two entities whose links are single ids become document relations between
// those ids (BC5CDR's CID, as BigBio converts it). Left out and reported once per kind as a
// Diagnostic, never dropped silently: events, coreferences, other relations, entity and
// passage keys a Document has no place for.
//
// Problems are ParseErrors naming the file and line: syntax, nesting deeper than kMaxJsonDepth,
// a line longer than kMaxBigBioLineBytes (refused as it is read, before it is held), wrong
// types, offsets outside the text or that disagree with the texts, a NUL in a text.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/left_out_tally.h"

namespace linkscope {

class LineReader;

/// The longest line (one document) the BigBio reader holds. A PubMed abstract is kilobytes, a
/// full-text article a few megabytes.
inline constexpr std::size_t kMaxBigBioLineBytes = std::size_t{64} << 20;

/// Parses one line (one document). `file` and `line` name it in errors; what has no place in the
/// Document is counted in `leftOut`.
Document parseBigBioDocument(std::string_view json, const std::string& file, std::size_t line, LeftOutTally& leftOut);

/// Reads a BigBio JSONL file one document at a time (for `link`, which streams). Blank lines
/// are skipped. Memory: one line (at most kMaxBigBioLineBytes) and its parsed tree.
class BigBioDocumentReader {
public:
    /// Opens through LineReader: plain or gzip, UTF-8 checked, a FIFO or folder refused.
    explicit BigBioDocumentReader(const std::filesystem::path& path);
    ~BigBioDocumentReader();
    BigBioDocumentReader(const BigBioDocumentReader&) = delete;
    BigBioDocumentReader& operator=(const BigBioDocumentReader&) = delete;

    /// The next document; nullopt at the end of the file, which then must have held at least
    /// one document (else ParseError).
    std::optional<Document> next();
    /// One Diagnostic per kind of thing left out so far.
    std::vector<Diagnostic> diagnostics() const;
    const std::string& fileName() const noexcept;

private:
    std::unique_ptr<LineReader> lines_;
    LeftOutTally leftOut_;
    std::size_t documents_ = 0;
};

/// Reads one BigBio JSONL file (plain or .gz). Corpus::name is the file name without
/// extensions. A document id seen before keeps the first copy, as readPubTator does.
/// Memory: the corpus read, plus one line and its tree at a time.
Corpus readBigBio(const std::filesystem::path& path);

}  // namespace linkscope
