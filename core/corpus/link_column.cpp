#include "corpus/link_column.h"

#include "corpus/pubtator_lines.h"
#include "util/error.h"

namespace linkscope {

std::string formatLinkColumn(const ConceptIdList& ids) {
    if (ids.cuiLess || ids.ids.empty()) return "-1";
    const char separator = ids.join == IdJoin::Conjunction ? '+' : '|';
    std::string column;
    for (const auto& id : ids.ids) {
        if (!column.empty()) column += separator;
        column += shortConceptId(id);
    }
    return column;
}

bool idColumnMatchesIds(const Mention& mention) {
    try {
        return sameIds(parseConceptIdList(mention.idColumn), mention.ids);
    } catch (const Error&) {
        return false;  // a column that no longer parses says nothing about the ids
    }
}

std::string linkColumnOf(const Mention& mention) {
    if (idColumnMatchesIds(mention)) return std::string(pubtator::trimmed(mention.idColumn));
    return formatLinkColumn(mention.ids);
}

bool isUnlinked(const Mention& mention) {
    return pubtator::trimmed(mention.idColumn).empty() && idColumnMatchesIds(mention);
}

}  // namespace linkscope
