#pragma once
// Internal to the PubTator reader: the shapes of single lines and the parsing of one annotation
// line. Parse functions throw Error without a location; the reader adds file and line.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "corpus/mention.h"

namespace linkscope::pubtator {

enum class LineKind {
    Blank,           ///< empty line: ends a document
    WhitespaceOnly,  ///< spaces or tabs only: treated as blank, with a diagnostic
    Title,           ///< PMID|t|title
    Abstract,        ///< PMID|a|abstract
    Annotation,      ///< PMID<TAB>...: a mention or a relation
    Unknown,
};

struct ClassifiedLine {
    LineKind kind = LineKind::Unknown;
    std::string_view pmid;  ///< for Title, Abstract and Annotation
    std::string_view rest;  ///< Title/Abstract: the text after "|t|"/"|a|"
};

ClassifiedLine classify(std::string_view line) noexcept;

/// PMIDs are numeric in PubMed, but other PubTator producers use ids such as "PMC123" or
/// "doc_1.2"; accept letters, digits and "_.-", which keeps separators and spaces out.
bool isValidPmid(std::string_view pmid) noexcept;

/// The tab-separated columns of a line, as views into it (no allocation). A line has at most
/// 7 meaningful columns; `count` keeps counting past kMaxColumns so that the error can say how
/// many there were.
struct Columns {
    static constexpr std::size_t kMaxColumns = 8;
    std::array<std::string_view, kMaxColumns> items{};
    std::size_t count = 0;
    std::string_view operator[](std::size_t i) const noexcept { return items[i]; }
};

Columns splitColumns(std::string_view line) noexcept;

/// Relation lines name their type in the second column ("CID"); mention lines hold a start
/// offset there. A second column that starts with a letter marks a relation.
bool isRelation(const Columns& columns) noexcept;

/// Parses PMID, start, end, text, type, ids [, individual mentions]. Offsets are checked for
/// syntax only; the reader checks them against the document text.
Mention parseMention(const Columns& columns);

/// Parses PMID, type, argument, argument [, more arguments].
Relation parseRelation(const Columns& columns);

/// The column for display in messages: quoted, shortened to about 80 bytes.
std::string quoteForMessage(std::string_view text);

/// Removes ASCII whitespace at both ends.
std::string_view trimmed(std::string_view text) noexcept;

}  // namespace linkscope::pubtator
