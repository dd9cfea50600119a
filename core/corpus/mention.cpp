#include "corpus/mention.h"

namespace linkscope {

bool sameIds(const ConceptIdList& a, const ConceptIdList& b) noexcept {
    return a.ids == b.ids && a.join == b.join && a.cuiLess == b.cuiLess;
}

bool sameContent(const Mention& a, const Mention& b) noexcept {
    return a.start == b.start && a.end == b.end && a.text == b.text && a.type == b.type &&
           a.semanticTypes == b.semanticTypes && sameIds(a.ids, b.ids) && a.idColumn == b.idColumn &&
           a.individualMentions == b.individualMentions &&
           a.hasIndividualMentionColumn == b.hasIndividualMentionColumn && a.paddedText == b.paddedText &&
           a.offsetsValid == b.offsetsValid;
}

bool sameContent(const Relation& a, const Relation& b) noexcept {
    return a.type == b.type && a.arguments == b.arguments && a.rawArguments == b.rawArguments;
}

}  // namespace linkscope
