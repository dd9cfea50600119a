#pragma once
// Writing a corpus as BigBio KB schema JSON lines (bigbio_reader.h), one document per line:
//
//   {"id":"PMID","document_id":"PMID",
//    "passages":[{"id":"PMID_title","type":"title","text":["..."],"offsets":[[0,42]]},
//                {"id":"PMID_abstract","type":"abstract","text":["..."],"offsets":[[43,900]]}],
//    "entities":[{"id":"PMID_T1","type":"Disease","text":["breast cancer"],"offsets":[[22,35]],
//                 "normalized":[{"db_name":"MESH","db_id":"D001943"}]}],
//    "events":[],"coreferences":[],
//    "relations":[{"id":"PMID_R1","type":"CID","arg1_id":"PMID_T3","arg2_id":"PMID_T1","normalized":[]}]}
//
// Offsets count characters of title + " " + abstract, as Mention offsets do. The link is
// "normalized": each id of the mention as {db_name, db_id}, the canonical id split at its first
// ':' (MESH:D001943 -> "MESH", "D001943"; an id without a prefix has db_name ""); the CUI-less
// "-1" is {"db_name":"","db_id":"-1"}; an unlinked mention (empty id column, link_column.h) has
// an empty list. A conjunction ("+") adds "linkscope_join":"+" to the entity (the reader reads it
// back; other BigBio tools see the ids as a list).
//
// BigBioWriteOptions::candidates adds "linkscope_candidates": [{"db_name", "db_id", "score"}],
// best first, to an entity: a linker's K best with their scores (`link --top K`).
//
// What BigBio cannot hold is left out and COUNTED in the summary, never dropped silently:
// document relations whose arguments are not both linked to some entity of the document (BigBio
// relations are between entities), relations of more than two arguments, BC5CDR's lists of
// individual mentions, and what only PubTator needs for byte-exact writing.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace linkscope {

/// One scored candidate of a linker: a canonical id (concept_id.h) and its score.
struct BigBioCandidate {
    std::string id;
    double score = 0.0;
};

struct BigBioWriteOptions {
    /// The candidates of corpus.documents()[document].mentions[mention], best first; unset or
    /// empty: no "linkscope_candidates" key.
    std::function<std::vector<BigBioCandidate>(std::size_t document, std::size_t mention)> candidates;
};

struct BigBioExportSummary {
    std::size_t documents = 0;
    std::size_t entities = 0;
    std::size_t relations = 0;                      ///< written
    std::size_t relationsLeftOut = 0;               ///< document relations BigBio cannot hold
    std::size_t individualMentionListsLeftOut = 0;  ///< BC5CDR's lists of a composite's parts

    bool complete() const noexcept { return relationsLeftOut == 0 && individualMentionListsLeftOut == 0; }
};

/// One document as one line of JSON (no line break). `candidates(mention)` gives the scored
/// candidates of document.mentions[mention]; unset: none. Adds to `summary`. Throws Error for a
/// malformed PMID, a mention whose offsets failed validation, a NUL character or invalid UTF-8.
std::string formatBigBioDocument(
    const Document& document, BigBioExportSummary& summary,
    const std::function<std::vector<BigBioCandidate>(std::size_t mention)>& candidates = {});

/// Every document, one line each, through AtomicFileWriter. Throws Error on failure.
BigBioExportSummary writeBigBio(const Corpus& corpus, const std::filesystem::path& path,
                                const BigBioWriteOptions& options = {});

/// The same lines as text (tests, small corpora).
std::string formatBigBio(const Corpus& corpus, BigBioExportSummary& summary, const BigBioWriteOptions& options = {});

}  // namespace linkscope
