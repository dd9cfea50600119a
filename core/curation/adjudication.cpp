#include "curation/adjudication.h"

#include <algorithm>
#include <set>

#include "curation/agreement.h"

namespace linkscope::curation {
namespace {

using project::Decision;

// The decisions in effect, in id order (the order they were recorded in).
std::vector<const Decision*> inIdOrder(std::span<const Decision> done) {
    std::vector<const Decision*> ordered;
    for (const Decision& decision : done)
        if (decision.state == project::DecisionState::Done) ordered.push_back(&decision);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Decision* a, const Decision* b) { return a->id < b->id; });
    return ordered;
}

// Every mention any curator decided, with each curator's latest deciding decision and the
// latest adjudication.
std::map<project::MentionKey, Disagreement> decidedMentions(std::span<const Decision> done) {
    std::map<project::MentionKey, Disagreement> mentions;
    for (const Decision* decision : inIdOrder(done)) {
        auto category = agreementCategory(*decision);
        if (!category) continue;  // a skip leaves the curator's earlier decision in effect
        Disagreement& entry = mentions[decision->mention];
        entry.mention = decision->mention;
        entry.mentionText = decision->mentionText;
        if (isAdjudication(*decision)) {
            entry.adjudication = *decision;
        } else {
            entry.byCurator[decision->curator] = *decision;
            entry.categories[decision->curator] = std::move(*category);
        }
    }
    return mentions;
}

}  // namespace

std::string adjudicatorName(std::string_view curator) {
    if (curator.ends_with(kAdjudicatorSuffix)) return std::string(curator);
    return std::string(curator) + std::string(kAdjudicatorSuffix);
}

bool isAdjudication(const Decision& decision) noexcept {
    return std::string_view(decision.curator).ends_with(kAdjudicatorSuffix);
}

std::vector<std::string> curatorsOf(std::span<const Decision> done) {
    std::vector<std::string> curators;
    std::set<std::string> seen;
    for (const Decision* decision : inIdOrder(done))
        if (!isAdjudication(*decision) && seen.insert(decision->curator).second) curators.push_back(decision->curator);
    return curators;
}

bool Disagreement::settled() const noexcept {
    if (!adjudication) return false;
    return std::all_of(byCurator.begin(), byCurator.end(),
                       [this](const auto& entry) { return entry.second.id < adjudication->id; });
}

std::vector<Disagreement> findDisagreements(std::span<const Decision> done, const std::string& curatorA,
                                            const std::string& curatorB) {
    const bool pair = !curatorA.empty() && !curatorB.empty();
    std::vector<Disagreement> disagreements;
    for (auto& [key, entry] : decidedMentions(done)) {
        bool differ = false;
        if (pair) {
            const auto a = entry.categories.find(curatorA);
            const auto b = entry.categories.find(curatorB);
            differ = a != entry.categories.end() && b != entry.categories.end() && a->second != b->second;
        } else {
            std::set<std::string> distinct;
            for (const auto& [curator, category] : entry.categories) distinct.insert(category);
            differ = distinct.size() > 1;
        }
        if (differ) disagreements.push_back(std::move(entry));
    }
    return disagreements;
}

std::size_t openDisagreements(std::span<const Decision> done) {
    const auto all = findDisagreements(done);
    return static_cast<std::size_t>(
        std::count_if(all.begin(), all.end(), [](const Disagreement& d) { return !d.settled(); }));
}

}  // namespace linkscope::curation
