#pragma once
// A BioC annotation (XML or JSON) read as the PubTator mention line it stands for, so that one set
// of rules (pubtator_lines.h) decides types, id lists and individual mentions whatever format they
// came in.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "corpus/mention.h"
#include "corpus/pubtator_lines.h"

namespace linkscope {

/// The id column of a BioC "identifier" infon: PubTator separates several gene ids with ';' where
/// the PubTator files use '|'.
inline std::string linkColumnFromInfon(std::string value) {
    if (value.find(';') != std::string::npos && value.find_first_of("|+") == std::string::npos)
        std::replace(value.begin(), value.end(), ';', '|');
    return value;
}

/// The mention of an annotation at [start, start + length) (characters) of document `pmid`.
/// Throws Error as pubtator::parseMention does.
inline Mention bioCAnnotationMention(std::string_view pmid, std::size_t start, std::size_t length,
                                     std::string_view text, std::string_view type,
                                     const std::optional<std::string>& link,
                                     const std::optional<std::string>& individual) {
    const std::string startColumn = std::to_string(start);
    const std::string endColumn = std::to_string(start + length);
    const std::string linkColumn = linkColumnFromInfon(link.value_or(std::string()));
    pubtator::Columns columns;
    columns.items = {pmid,
                     startColumn,
                     endColumn,
                     text,
                     type,
                     linkColumn,
                     individual ? std::string_view(*individual) : std::string_view()};
    columns.count = individual ? 7 : 6;
    return pubtator::parseMention(columns);
}

}  // namespace linkscope
