#pragma once
// The corrected corpus: a corpus with the curation decisions in effect applied to its mentions.
// Everything the decisions do not touch is kept as it was read, so that writing the result as
// PubTator differs from the input file exactly in the lines of the changed mentions.
#include <cstddef>
#include <span>
#include <string_view>

#include "corpus/corpus.h"
#include "project/curation_decision.h"

namespace linkscope::curation {

struct ApplySummary {
    std::size_t decisions = 0;          ///< decisions of this split that were applied (skips included)
    std::size_t otherSplits = 0;        ///< decisions for other splits, not looked at
    std::size_t changedMentions = 0;    ///< mentions whose link is now different
    std::size_t unchangedMentions = 0;  ///< decided mentions that kept their link (an accept of it, a skip)
};

/// A copy of `corpus` (the corpus of `split`) in which each mention a decision of `done` names
/// (document and offsets, see project::MentionKey) carries decidedLink(decision):
///  - accept / correct: the chosen ids; nil: "-1" (CUI-less);
///  - reject: an EMPTY id column, "unlinked", kept apart from nil's "-1" (link_column.h): the
///    PubTator reader and writer keep an empty column as it is, BioC leaves the identifier infon
///    out and brat writes no N line, so a rejection reads back from every format;
///  - skip: no change.
/// Decisions apply in id order, so the latest one on a mention wins. A changed mention gets its
/// ids and its id column rewritten together (ids in the corpus' short form, as the PubTator
/// writer spells edited ids); a decision that leaves the link as it was leaves the mention's
/// bytes alone. BC5CDR's individual-mention column is not touched (it lists text, not ids).
///
/// `done` must hold decisions in effect only (ProjectStore::doneDecisions()). Throws Error when
/// one of them is not done, its link does not parse, or it names a mention that is not in the
/// corpus (no document of that PMID, no mention at those offsets, or a mention whose text is no
/// longer the one the curator saw): the message lists every such decision, none is dropped.
Corpus applyDecisions(const Corpus& corpus, std::string_view split, std::span<const project::Decision> done,
                      ApplySummary* summary = nullptr);

}  // namespace linkscope::curation
