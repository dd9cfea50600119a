#include "train/candidate_rows.h"

#include <algorithm>
#include <map>
#include <unordered_set>
#include <utility>

namespace linkscope::train {

std::vector<std::uint32_t> sharedCandidateRow(std::size_t m, std::span<const std::vector<std::uint32_t>> dense,
                                              std::span<const std::uint32_t> documents, std::size_t own,
                                              std::size_t shared, const EntryScore& score) {
    const auto& mine = dense[m];
    std::vector<std::uint32_t> row;
    std::unordered_set<std::uint32_t> inRow;
    for (std::size_t c = 0; c < std::min(own, mine.size()); ++c)
        if (inRow.insert(mine[c]).second) row.push_back(mine[c]);
    // What the document's other mentions offer, each entry once.
    std::vector<std::pair<float, std::uint32_t>> offered;
    std::unordered_set<std::uint32_t> seen(inRow);
    for (std::size_t other = 0; other < dense.size(); ++other) {
        if (other == m || documents[other] != documents[m]) continue;
        for (std::size_t c = 0; c < std::min(own, dense[other].size()); ++c)
            if (seen.insert(dense[other][c]).second) offered.emplace_back(score(dense[other][c]), dense[other][c]);
    }
    std::stable_sort(offered.begin(), offered.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (std::size_t i = 0; i < offered.size() && i < shared; ++i) {
        inRow.insert(offered[i].second);
        row.push_back(offered[i].second);
    }
    // The document offered fewer: the row is filled with the mention's next own candidates.
    for (std::size_t c = own; c < mine.size() && row.size() < own + shared; ++c)
        if (inRow.insert(mine[c]).second) row.push_back(mine[c]);
    return row;
}

bool injectGold(std::vector<std::uint32_t>& row, const std::function<bool(std::uint32_t)>& isPositive,
                std::span<const std::uint32_t> goldEntries, const EntryScore& score) {
    if (row.empty() || goldEntries.empty()) return false;
    for (const auto entry : row)
        if (isPositive(entry)) return false;
    std::uint32_t best = goldEntries.front();
    float bestScore = score(best);
    for (const auto entry : goldEntries.subspan(1)) {
        const float value = score(entry);
        if (value > bestScore) {
            best = entry;
            bestScore = value;
        }
    }
    row.back() = best;
    return true;
}

std::vector<MentionGroup> groupByDocumentEntity(std::span<const TrainingMention> mentions) {
    std::vector<MentionGroup> groups;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> groupOf;
    for (std::size_t m = 0; m < mentions.size(); ++m) {
        if (mentions[m].gold.size() != 1) continue;
        const auto key = std::pair{mentions[m].document, mentions[m].gold.front()};
        auto [it, added] = groupOf.try_emplace(key, groups.size());
        if (added) groups.push_back({mentions[m].gold.front(), {}});
        groups[it->second].mentions.push_back(m);
    }
    return groups;
}

std::vector<std::uint32_t> shortlistNegatives(std::span<const std::size_t> mentions,
                                              std::span<const std::vector<std::uint32_t>> candidateRows,
                                              const std::function<std::uint32_t(std::uint32_t)>& entityOf,
                                              std::uint32_t rows, std::uint32_t gold, const EntryScore& distance,
                                              std::size_t count) {
    std::vector<std::pair<float, std::uint32_t>> scored;
    std::unordered_set<std::uint32_t> seen;
    const auto consider = [&](std::uint32_t row) {
        if (entityOf(row) != gold && seen.insert(row).second) scored.emplace_back(distance(row), row);
    };
    for (const auto m : mentions)
        for (const auto row : candidateRows[m]) consider(row);
    if (scored.empty())
        for (std::uint32_t row = 0; row < rows; ++row) consider(row);
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    if (scored.size() > count) scored.resize(count);
    std::vector<std::uint32_t> entities;
    entities.reserve(scored.size());
    for (const auto& [d, row] : scored) entities.push_back(entityOf(row));
    return entities;
}

}  // namespace linkscope::train
