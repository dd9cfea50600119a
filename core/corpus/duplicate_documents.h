#pragma once
// One rule for a PMID read twice, whichever reader or merge meets it: the first copy is kept and
// the second is recorded (Corpus::duplicates, and a diagnostic at the second copy's file and
// line), never dropped silently. The PubTator and BioC readers meet it within their input, the
// corpus input merge (corpus_input.h) across the files of one split.
#include <functional>
#include <string>

#include "corpus/corpus.h"

namespace linkscope {

/// Says how a copy that differs from the kept one differs ("title differs", ...); without it the
/// diagnostic says "the copies differ".
using DescribeDifference = std::function<std::string(const Document& kept, const Document& again)>;

/// Adds `document`, or, when its PMID is already in `corpus`, records it as a duplicate of the
/// copy kept there. Returns whether the document was added.
bool addKeepingFirstCopy(Corpus& corpus, Document document, const DescribeDifference& describeDifference = {});

}  // namespace linkscope
