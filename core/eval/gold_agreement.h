#pragma once
// When a link agrees with a mention's gold ids. A link is the ids a decision or a proposal names,
// joined by '|' ("A", "A|B"; "-1" for NIL). Two rules, each for its own question:
//
//   lenient  Is the linker right? Every id of the link is among the gold ids: "A" on gold "A|B"
//            is right. Gold "A|B" lists the concepts a composite mention names, and BioSyn's
//            Acc@1 (eval/evaluate.h, lenient) counts a part right when its entity is any of
//            them. The accuracies of simulate-curation (curation/simulated_curation.h) and of
//            the simulated review (curation/review_walk.h) use it, so that their figures compare
//            with the evaluation's.
//   exact    Is the mention finished? The link names exactly the gold ids, in any order: "A" on
//            gold "A|B" disagrees, because the corpus exported with that link would lose "B".
//            The Documents dock counts a document's disagreements with it: what a curator still
//            has to look at. CUI-less gold agrees only with the NIL link "-1".
#include <span>
#include <string>
#include <string_view>

#include "corpus/concept_id.h"

namespace linkscope::eval {

/// The lenient rule over the ids of a link's parts: at least one, and each one among `gold`.
bool partsAgreeLeniently(std::span<const std::string_view> ids, std::span<const std::string> gold);
/// The lenient rule over a '|'-joined link: false for an empty link or an empty part.
bool linkAgreesLeniently(std::string_view link, std::span<const std::string> gold);
/// The exact rule: the link's ids (empty parts ignored) and the gold ids ("-1" when CUI-less)
/// are the same list once sorted.
bool linkAgreesExactly(std::string_view link, const ConceptIdList& gold);

}  // namespace linkscope::eval
