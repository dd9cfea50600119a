#pragma once
// UMLS Metathesaurus in Rich Release Format:
//   MRCONSO.RRF  CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
//   MRSTY.RRF    CUI|TUI|STN|STY|ATUI|CVF|
// (every field, the last included, is terminated by '|'). Entities are concepts, with primary
// id "UMLS:<CUI>"; names are the STR of the rows kept by the filters below; semantic types
// are (TUI, STY). Rows of one concept may be anywhere in the file.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kb/load_result.h"

namespace linkscope::kb {

struct UmlsOptions : LoadOptions {
    /// LAT values to keep, in order of preference for the preferred name.
    std::vector<std::string> languages{"ENG"};
    /// SUPPRESS=N rows are always kept; these keep the suppressible ones as well.
    bool keepObsolete = false;            ///< SUPPRESS=O
    bool keepEditorSuppressible = false;  ///< SUPPRESS=E
    bool keepSourceSuppressible = false;  ///< SUPPRESS=Y
    /// SAB values to keep; empty keeps every source vocabulary.
    std::vector<std::string> sources;
    /// TUIs (umls_subsets.h: semanticTypeFilter) whose concepts are kept, each with its
    /// descendants in the semantic type hierarchy (a type whose MRSTY tree number STN lies under
    /// the filter type's, as MedMentions' ST21pv counts them); empty keeps every concept. Needs
    /// MRSTY.RRF: asking for it without one is an Error, not an unfiltered KB.
    std::vector<std::string> semanticTypes;
};

/// Loads MRCONSO (and MRSTY when given). The preferred name of a concept is the STR of its row
/// with TS=P, STT=PF and ISPREF=Y (in the first listed language that has one), or else its
/// first kept row. Throws ParseError (file:line) for a row with the wrong number of fields, a
/// malformed CUI or an unknown SUPPRESS value (diagnostics instead in lenient mode). Semantic
/// types of concepts without kept names are counted in one diagnostic. With a semantic-type
/// filter MRSTY is read first, and a filter type that no MRSTY row names is a diagnostic.
KbLoadResult loadUmls(const std::filesystem::path& mrconso, const std::optional<std::filesystem::path>& mrsty,
                      const UmlsOptions& options = {});

}  // namespace linkscope::kb
