#include "document_review.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "decision_command.h"
#include "decision_log.h"
#include "eval/gold_agreement.h"
#include "ranker_host.h"

namespace linkscope::ui {

DocumentReview reviewDocument(const DecisionLog& decisions, const RankerHost& rankers, const std::string& split,
                              const Document& document) {
    DocumentReview review;
    std::map<QString, int> byWhom;
    for (const Mention& mention : document.mentions) {
        ++review.mentions;
        const project::MentionKey key{split, document.pmid(), mention.start, mention.end};
        const auto& inEffect = decisions.decisionsInEffect();
        const auto decision = inEffect.find(key);
        const bool decided = decision != inEffect.end();
        if (decided) {
            ++review.reviewed;
            ++byWhom[decidedBy(decision->second)];
        }
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
    std::vector<std::pair<QString, int>> whom(byWhom.begin(), byWhom.end());
    std::stable_sort(whom.begin(), whom.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    QStringList names;
    for (const auto& [name, count] : whom) names << QStringLiteral("%1 (%2)").arg(name).arg(count);
    review.decidedBy = names.join(QStringLiteral(", "));
    return review;
}

}  // namespace linkscope::ui
