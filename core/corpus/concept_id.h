#pragma once
// Concept identifiers as corpora and vocabularies write them, in one canonical spelling so that
// "D012878" (NCBI Disease), "MESH:D012878" (CTD) and "MeSH:D012878" compare equal.
//
// Canonical forms:  MeSH descriptor / supplementary concept  MESH:D012878, MESH:C535700
//                   OMIM                                     OMIM:217000
//                   UMLS concept (C + 7 digits)              UMLS:C0011849
//                   anything else with a prefix              PREFIX:rest (prefix upper-cased)
//                   anything else                            unchanged
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope {

/// Canonical spelling of one identifier (surrounding whitespace removed). Returns nullopt for
/// an empty string and for the CUI-less marker "-1".
std::optional<std::string> canonicalConceptId(std::string_view raw);

/// The short form used by MEDIC and the NCBI corpus: "MESH:D012878" -> "D012878", other
/// identifiers unchanged.
std::string_view shortConceptId(std::string_view canonical) noexcept;

/// How the parts of a composite identifier are joined.
enum class IdJoin {
    Single,       ///< one identifier
    Alternative,  ///< "A|B": the mention names several concepts (composite mention)
    Conjunction,  ///< "A+B": the mention denotes the combination of several concepts
};

/// The identifiers of one mention, parsed from its id column.
struct ConceptIdList {
    std::vector<std::string> ids;  ///< canonical ids; empty for a CUI-less mention ("-1")
    IdJoin join = IdJoin::Single;
    bool cuiLess = false;  ///< the column said "-1" (or was empty)
};

/// Parses an id column such as "D001943|D010051", "D020279+D035583", "OMIM:217000", "-1",
/// "UMLS:C0011849". Throws Error (without location; the caller adds it) when the column mixes
/// '|' and '+' or holds an empty part.
ConceptIdList parseConceptIdList(std::string_view column);

}  // namespace linkscope
