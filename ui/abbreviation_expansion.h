#pragma once
// A mention as the linkers read it: with the abbreviations its document defines expanded ("HD"
// in a document that writes "Huntington disease (HD)" reads "Huntington disease"), as BioSyn's
// preprocessing and the evaluation do (core/text/abbreviations.h). The document view shows the
// expansion, and the sparse ranker ranks it.
#include <optional>
#include <string>
#include <vector>

#include "text/abbreviations.h"

namespace linkscope {
class Document;
struct Mention;
}  // namespace linkscope

namespace linkscope::ui {

/// The document's definitions (title + "\n" + abstract, the corpus offsets); none for text
/// that is not UTF-8 (the readers never produce it).
std::vector<text::AbbreviationDefinition> abbreviationsOf(const Document& document);

/// The mention with the definitions expanded and the definitions used (indexes into
/// `definitions`); nullopt when it holds no defined short form.
std::optional<text::ExpandedMention> expandedMention(const Mention& mention,
                                                     const std::vector<text::AbbreviationDefinition>& definitions);

}  // namespace linkscope::ui
