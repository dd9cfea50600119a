#include "curation/review_walk.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "corpus/id_list.h"
#include "eval/gold_agreement.h"
#include "util/error.h"

namespace linkscope::curation {

std::size_t ReviewLinker::reach(std::size_t, std::span<const std::uint8_t>, bool) const { return 0; }

std::vector<std::size_t> ReviewLinker::decide(std::size_t, std::span<const std::string>, bool) { return {}; }

void ReviewLinker::reset() {}

std::string_view reviewOrderName(ReviewOrderKind order) noexcept {
    return order == ReviewOrderKind::Document ? "document" : "queue";
}

std::optional<ReviewOrderKind> reviewOrderFromName(std::string_view name) noexcept {
    if (name == "document") return ReviewOrderKind::Document;
    if (name == "queue") return ReviewOrderKind::Queue;
    return std::nullopt;
}

std::optional<std::size_t> ReviewWalk::decisionsToReach(double accuracy) const {
    for (const ReviewStep& step : steps)
        if (step.accuracy >= accuracy) return step.decisions;
    return std::nullopt;
}

namespace {

// The same ids, in any order (what "a link in effect that differs" compares).
bool sameIds(std::string_view a, std::string_view b) {
    auto left = splitIdList(a), right = splitIdList(b);
    std::sort(left.begin(), left.end());
    std::sort(right.begin(), right.end());
    left.erase(std::unique(left.begin(), left.end()), left.end());
    right.erase(std::unique(right.begin(), right.end()), right.end());
    return left == right;
}

std::string joined(std::span<const std::string> ids) {
    std::string link;
    for (const auto& id : ids) {
        if (!link.empty()) link += '|';
        link += id;
    }
    return link;
}

double ratio(std::size_t correct, std::size_t total) {
    return total == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(total);
}

}  // namespace

ReviewWalk simulateReview(ReviewLinker& linker, std::span<const ReviewMention> mentions,
                          const ReviewWalkOptions& options) {
    const std::size_t n = mentions.size();
    if (linker.size() != n)
        throw Error("simulated review: the linker knows " + std::to_string(linker.size()) + " mentions, the walk has " +
                    std::to_string(n));
    for (std::size_t i = 0; i < n; ++i)
        if (mentions[i].gold.empty())
            throw Error("simulated review: mention " + std::to_string(i) + " of document " + mentions[i].document +
                        " has no gold id");

    linker.reset();
    std::vector<ReviewSignals> signals(n);
    for (std::size_t i = 0; i < n; ++i) signals[i] = linker.signals(i);
    std::vector<std::uint8_t> decided(n, 0);
    std::vector<std::string> decisions(n);  // the link decided, for decided mentions
    std::vector<std::string> surfaces(n);
    std::unordered_map<std::string, std::vector<std::size_t>> bySurface;
    for (std::size_t i = 0; i < n; ++i) {
        surfaces[i] = mentions[i].surface;
        bySurface[mentions[i].surface].push_back(i);
    }

    const auto accuracy = [&] {
        std::size_t correct = 0;
        for (std::size_t i = 0; i < n; ++i)
            correct +=
                eval::linkAgreesLeniently(decided[i] ? decisions[i] : signals[i].proposal, mentions[i].gold) ? 1 : 0;
        return ratio(correct, n);
    };
    const auto refresh = [&](const std::vector<std::size_t>& changed) {
        for (const std::size_t i : changed)
            if (i < n) signals[i] = linker.signals(i);
    };

    ReviewWalk walk;
    walk.order = options.order;
    walk.applyToAll = options.applyToAll;
    walk.mentions = n;
    ReviewStep step;
    step.accuracy = accuracy();
    walk.steps.push_back(step);

    const std::string stage = "Simulating review (" + std::string(reviewOrderName(options.order)) + " order)";
    options.progress(stage, 0.0);
    std::size_t nextInDocumentOrder = 0;
    while (options.maxDecisions == 0 || step.decisions < options.maxDecisions) {
        options.progress.checkCancelled();
        std::optional<std::size_t> pick;
        if (options.order == ReviewOrderKind::Document) {
            while (nextInDocumentOrder < n && decided[nextInDocumentOrder]) ++nextInDocumentOrder;
            if (nextInDocumentOrder < n) pick = nextInDocumentOrder;
        } else {
            // The queue's reach, for the mentions as they are now.
            const std::vector<std::size_t> surfaceReach =
                options.applyToAll ? sameSurfaceReach(surfaces, decided) : std::vector<std::size_t>(n, 0);
            for (std::size_t i = 0; i < n; ++i)
                if (!decided[i]) signals[i].reach = surfaceReach[i] + linker.reach(i, decided, options.applyToAll);
            pick = nextForReview(signals, decided, options.policy);
        }
        if (!pick) break;
        const std::size_t m = *pick;
        const std::string link = joined(mentions[m].gold);
        const bool accept = eval::linkAgreesLeniently(signals[m].proposal, mentions[m].gold);
        decided[m] = 1;
        decisions[m] = link;
        refresh(linker.decide(m, mentions[m].gold, accept));
        ++step.decisions;
        ++step.decided;
        if (!accept) ++step.corrections;
        if (options.applyToAll) {
            for (const std::size_t j : bySurface[mentions[m].surface]) {
                if (decided[j] || sameIds(signals[j].proposal, link)) continue;
                decided[j] = 1;
                decisions[j] = link;
                ++step.decided;
                ++step.appliedToAll;
                refresh(linker.decide(j, mentions[m].gold, false));
            }
        }
        step.accuracy = accuracy();
        walk.steps.push_back(step);
        options.progress(stage, ratio(step.decided, n));
    }
    return walk;
}

std::string reviewWalkCsv(std::span<const ReviewWalk> walks) {
    std::ostringstream out;
    out << "order,apply_to_all,decisions,corrections,decided,applied_to_all,accuracy\n";
    for (const ReviewWalk& walk : walks)
        for (const ReviewStep& step : walk.steps)
            out << reviewOrderName(walk.order) << ',' << (walk.applyToAll ? 1 : 0) << ',' << step.decisions << ','
                << step.corrections << ',' << step.decided << ',' << step.appliedToAll << ',' << step.accuracy << '\n';
    return out.str();
}

}  // namespace linkscope::curation
