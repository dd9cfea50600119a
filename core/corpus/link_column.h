#pragma once
// A mention's link written as one column of ids, the way the exports spell it: the BioC
// "identifier" infon, the id column that applied decisions put in Mention::idColumn.
//
// Two ways of carrying no entity are kept apart, because they mean different things:
//   "-1"  CUI-less: the mention names nothing in the knowledge base (a curator's "nil"),
//   ""    unlinked: no link is given at all (a curator rejected the proposed one).
// ConceptIdList cannot tell them apart (both are cuiLess); Mention::idColumn can, and the
// PubTator reader and writer keep an empty id column as it is, so both read back.
#include <string>
#include <string_view>

#include "corpus/mention.h"

namespace linkscope {

/// The ids as a column: "-1" when CUI-less, otherwise the ids in the short form of the NCBI and
/// BC5CDR files ("MESH:D012878" -> "D012878") joined by '|' (alternative) or '+' (conjunction).
std::string formatLinkColumn(const ConceptIdList& ids);

/// True when Mention::idColumn still says what Mention::ids says (an editor may have changed
/// the ids without rewriting the column).
bool idColumnMatchesIds(const Mention& mention);

/// The mention's link as a column: its id column without surrounding whitespace when that still
/// matches the ids (the corpus' own spelling is kept), else formatLinkColumn(ids).
std::string linkColumnOf(const Mention& mention);

/// True when the mention carries no link at all: an empty id column that matches the ids.
bool isUnlinked(const Mention& mention);

}  // namespace linkscope
