#pragma once
// MEDIC and BioSyn dictionaries: one record per line, `IDS||NAME|NAME|...`.
//  - The line is split on its FIRST "||": names never contain it, identifiers never do.
//  - IDS is '|'-separated. MEDIC writes a MeSH id plus OMIM numbers of the same concept
//    ("C567755|613097", sometimes OMIM first: "605027|D008228"); bare numbers are OMIM ids
//    ("OMIM:613097"). The first MeSH (or other prefixed) id is the primary id, the others are
//    alternative ids; a line of OMIM numbers only ("101400||...") has the first as primary.
//  - BioSyn's train/dev/test dictionaries repeat the id on many lines with one name each, and
//    add the gold ids of training mentions, which may name several concepts
//    ("D001943|D010051") or a combination ("D015862+D058499"; one part joined by '+' is kept as
//    one identifier "MESH:D015862+MESH:D058499"). Lines with the same SET of ids (in any
//    order) are one entity, whose preferred name is the first name seen.
#include <filesystem>

#include "kb/load_result.h"

namespace linkscope::kb {

struct DictionaryOptions : LoadOptions {};

/// Loads a MEDIC / BioSyn dictionary (plain or .gz). Throws ParseError (file:line) for a line
/// without "||", with an empty or "-1" identifier or without any name (diagnostics instead in
/// lenient mode); empty names between bars are skipped with a diagnostic.
KbLoadResult loadDictionary(const std::filesystem::path& file, const DictionaryOptions& options = {});

}  // namespace linkscope::kb
