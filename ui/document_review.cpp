#include "document_review.h"

#include <optional>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "decision_log.h"
#include "eval/gold_agreement.h"
#include "ranker_host.h"

namespace linkscope::ui {

DocumentReview reviewDocument(const DecisionLog& decisions, const RankerHost& rankers, const std::string& split,
                              const Document& document) {
    DocumentReview review;
    for (const Mention& mention : document.mentions) {
        ++review.mentions;
        const project::MentionKey key{split, document.pmid(), mention.start, mention.end};
        const auto& inEffect = decisions.decisionsInEffect();
        const auto decision = inEffect.find(key);
        const bool decided = decision != inEffect.end();
        if (decided) ++review.reviewed;
        const std::optional<RankerHost::Proposal> proposed = rankers.proposal(key);
        if (!decided && proposed && rankers.lowConfidence(*proposed)) ++review.lowConfidence;
        // The link in effect against the gold ids, by the exact rule (eval/gold_agreement.h).
        std::string link;
        if (decided) {
            if (const auto decidedTo = project::decidedLink(decision->second))
                link = *decidedTo;
            else if (proposed)
                link = proposed->entity;
        } else if (proposed) {
            link = proposed->entity;
        } else {
            continue;  // nothing known yet
        }
        if (!eval::linkAgreesExactly(link, mention.ids)) ++review.disagreements;
    }
    return review;
}

}  // namespace linkscope::ui
