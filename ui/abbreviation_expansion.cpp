#include "abbreviation_expansion.h"

#include "corpus/document.h"
#include "corpus/mention.h"
#include "util/error.h"

namespace linkscope::ui {

std::vector<text::AbbreviationDefinition> abbreviationsOf(const Document& document) {
    try {
        return text::findAbbreviations(document.title + "\n" + document.abstract);
    } catch (const Error&) {
        return {};
    }
}

std::optional<text::ExpandedMention> expandedMention(const Mention& mention,
                                                     const std::vector<text::AbbreviationDefinition>& definitions) {
    if (definitions.empty()) return std::nullopt;
    text::ExpandedMention expanded = text::expandAbbreviations(mention.text, definitions);
    if (expanded.applied.empty()) return std::nullopt;
    return expanded;
}

}  // namespace linkscope::ui
