#include "curation/review_queue.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "util/error.h"

namespace linkscope::curation {

namespace {

bool isDecided(std::span<const std::uint8_t> decided, std::size_t i) { return !decided.empty() && decided[i] != 0; }

void checkSizes(std::size_t mentions, std::span<const std::uint8_t> decided) {
    if (!decided.empty() && decided.size() != mentions)
        throw Error("review queue: " + std::to_string(decided.size()) + " decided flags for " +
                    std::to_string(mentions) + " mentions");
}

}  // namespace

double reviewDoubt(const ReviewSignals& signals, const ReviewPolicy& policy) {
    if (signals.proposal.empty()) return 1.0;
    const double scale = policy.marginScale > 0.0 ? policy.marginScale : 1.0;
    const double confidence =
        std::pow(std::clamp(signals.confidence, 0.0, 1.0), std::max(0.0, policy.confidenceWeight));
    const double marginDoubt = 1.0 - std::clamp(signals.margin / scale, 0.0, 1.0) * confidence;
    if (signals.others.empty()) return marginDoubt;
    const auto differing = std::count_if(signals.others.begin(), signals.others.end(),
                                         [&](const std::string& other) { return other != signals.proposal; });
    const double disagreement = static_cast<double>(differing) / static_cast<double>(signals.others.size());
    const double w = std::clamp(policy.disagreementWeight, 0.0, 1.0);
    return (1.0 - w) * marginDoubt + w * disagreement;
}

double reviewPriority(const ReviewSignals& signals, const ReviewPolicy& policy) {
    return reviewDoubt(signals, policy) *
           (1.0 + std::max(0.0, policy.reachWeight) * static_cast<double>(signals.reach));
}

std::vector<std::size_t> reviewOrder(std::span<const ReviewSignals> mentions, std::span<const std::uint8_t> decided,
                                     const ReviewPolicy& policy) {
    checkSizes(mentions.size(), decided);
    std::vector<std::pair<double, std::size_t>> ranked;
    for (std::size_t i = 0; i < mentions.size(); ++i)
        if (!isDecided(decided, i)) ranked.emplace_back(reviewPriority(mentions[i], policy), i);
    // Highest priority first; equal priorities in project order (stable by index).
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<std::size_t> order;
    order.reserve(ranked.size());
    for (const auto& entry : ranked) order.push_back(entry.second);
    return order;
}

std::optional<std::size_t> nextForReview(std::span<const ReviewSignals> mentions, std::span<const std::uint8_t> decided,
                                         const ReviewPolicy& policy) {
    checkSizes(mentions.size(), decided);
    std::optional<std::size_t> best;
    double bestPriority = 0.0;
    for (std::size_t i = 0; i < mentions.size(); ++i) {
        if (isDecided(decided, i)) continue;
        const double priority = reviewPriority(mentions[i], policy);
        if (!best || priority > bestPriority) {  // strictly greater: ties keep the earlier mention
            best = i;
            bestPriority = priority;
        }
    }
    return best;
}

std::vector<std::size_t> sameSurfaceReach(std::span<const std::string> surfaces,
                                          std::span<const std::uint8_t> decided) {
    checkSizes(surfaces.size(), decided);
    std::unordered_map<std::string_view, std::size_t> undecided;
    for (std::size_t i = 0; i < surfaces.size(); ++i)
        if (!isDecided(decided, i)) ++undecided[surfaces[i]];
    std::vector<std::size_t> reach(surfaces.size(), 0);
    for (std::size_t i = 0; i < surfaces.size(); ++i)
        if (!isDecided(decided, i)) reach[i] = undecided[surfaces[i]] - 1;
    return reach;
}

}  // namespace linkscope::curation
