#include "review_queue_order.h"

#include <QString>

#include <algorithm>

#include "corpus/corpus.h"
#include "corpus/mention.h"
#include "curation/review_queue.h"
#include "curation_session.h"
#include "decision_log.h"
#include "project/loaded_project.h"
#include "ranker_host.h"
#include "review_claims.h"

namespace linkscope::ui {

std::vector<QueuedMention> reviewQueueOf(const CurationSession& session) {
    std::vector<QueuedMention> queue;
    const LoadedProject* project = session.decisions()->project();
    if (!project || !session.rankers()->proposalsAvailable()) return queue;
    std::vector<project::MentionKey> keys;
    std::vector<curation::ReviewSignals> signals;
    std::vector<std::string> surfaces;
    std::vector<std::uint8_t> decided;
    const bool runRanks = session.rankers()->runRanker() != nullptr;
    for (const SplitCorpus& split : project->splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions) {
                project::MentionKey key{split.split, document.pmid(), mention.start, mention.end};
                curation::ReviewSignals signal;
                if (const auto proposal = session.rankers()->proposal(key)) {
                    signal.proposal = proposal->entity;
                    signal.margin = proposal->margin;
                    signal.confidence = std::clamp(proposal->score, 0.0, 1.0);
                }
                // With a run ranking, sparse TF-IDF is the other linker whose disagreement is doubt.
                if (runRanks) {
                    const auto sparse = session.rankers()->sparseProposal(key);
                    signal.others.push_back(sparse ? sparse->entity : std::string());
                }
                // "The same text, ignoring case and spacing", as DecisionLog::sameSurface reads it.
                surfaces.push_back(QString::fromStdString(mention.text).simplified().toCaseFolded().toStdString());
                decided.push_back(session.decisions()->currentDecision(key) ? 1 : 0);
                signals.push_back(std::move(signal));
                keys.push_back(std::move(key));
            }
    // With a run: the datastore's reach, as the simulated review measured it (it holds the
    // identical mentions a context-free key reaches too); else the same-text mentions "Apply to
    // all" would change.
    if (const auto counts = runRanks ? session.rankers()->datastoreReachCounts() : std::nullopt) {
        for (std::size_t i = 0; i < signals.size(); ++i) {
            const auto found = counts->find(keys[i]);
            signals[i].reach = found == counts->end() ? 0 : found->second;
        }
    } else {
        const std::vector<std::size_t> reach = curation::sameSurfaceReach(surfaces, decided);
        for (std::size_t i = 0; i < signals.size(); ++i) signals[i].reach = reach[i];
    }
    const curation::ReviewPolicy policy;
    // A team project: a mention that other curators hold every claim of is theirs to review.
    const ReviewClaims* claims = session.claims()->active() ? session.claims() : nullptr;
    for (const std::size_t i : curation::reviewOrder(signals, decided, policy))
        if (!claims || !claims->takenByOthers(keys[i]))
            queue.push_back({keys[i], curation::reviewPriority(signals[i], policy)});
    return queue;
}

std::map<std::pair<std::string, std::string>, double> documentPriorities(const std::vector<QueuedMention>& queue) {
    std::map<std::pair<std::string, std::string>, double> best;
    for (const QueuedMention& entry : queue) {
        double& priority = best[{entry.key.split, entry.key.document}];
        priority = std::max(priority, entry.priority);
    }
    return best;
}

}  // namespace linkscope::ui
