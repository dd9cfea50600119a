#include "train/kb_holdout.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_map>

namespace linkscope::train {
namespace {

bool sortedHolds(const std::vector<std::string>& sorted, std::string_view value) noexcept {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), value,
                                     [](const std::string& a, std::string_view b) { return a < b; });
    return it != sorted.end() && *it == value;
}

// A uniform draw below `bound` with our own rejection (std::uniform_int_distribution differs
// between libraries, and the holdout must be the same everywhere).
std::uint64_t drawBelow(std::mt19937_64& rng, std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t value = rng();
    while (value >= limit) value = rng();
    return value % bound;
}

}  // namespace

bool KbHoldout::holdsConcept(std::string_view id) const noexcept { return sortedHolds(sortedConcepts_, id); }
bool KbHoldout::holdsName(std::string_view name) const noexcept { return sortedHolds(sortedNames_, name); }

std::size_t kbHoldoutSize(std::size_t eligible, std::size_t cap) noexcept {
    std::size_t size = static_cast<std::size_t>(std::llround(kKbHoldoutShare * double(eligible)));
    size = std::max(size, kKbHoldoutFloor);
    size = std::min(size, static_cast<std::size_t>(kKbHoldoutMostShare * double(eligible)));
    size = std::min(size, kKbHoldoutMost);
    if (cap != 0) size = std::min(size, cap);
    return size < kKbHoldoutFewest ? 0 : size;
}

KbHoldout holdOutConcepts(const retrieval::NameDictionary& dictionary, std::uint64_t seed, std::size_t cap) {
    // Per concept (first seen first): its entries, and its own ones (entries naming it alone).
    std::unordered_map<std::string_view, std::uint32_t> conceptOf;
    std::vector<std::string_view> ids;
    std::vector<std::uint32_t> entryCount;
    std::vector<std::uint32_t> ownCount;
    for (const auto& entry : dictionary) {
        for (const auto& id : entry.ids) {
            auto [it, added] = conceptOf.try_emplace(id, static_cast<std::uint32_t>(ids.size()));
            if (added) {
                ids.push_back(id);
                entryCount.push_back(0);
                ownCount.push_back(0);
            }
            ++entryCount[it->second];
            if (entry.ids.size() == 1) ++ownCount[it->second];
        }
    }
    std::vector<std::uint32_t> eligible;
    for (std::uint32_t c = 0; c < ids.size(); ++c)
        if (entryCount[c] >= 2 && ownCount[c] >= 1) eligible.push_back(c);

    KbHoldout holdout;
    holdout.eligibleConcepts = eligible.size();
    const std::size_t size = kbHoldoutSize(eligible.size(), cap);
    if (size == 0) return holdout;

    // The concepts by a partial Fisher-Yates shuffle, then each one's query name among its own
    // entries; a stream of its own ("HOLDOUT"), apart from the batches' and the pairs'.
    std::mt19937_64 rng(seed ^ 0x484F4C444F5554ULL);
    for (std::size_t i = 0; i < size; ++i) std::swap(eligible[i], eligible[i + drawBelow(rng, eligible.size() - i)]);
    eligible.resize(size);
    std::sort(eligible.begin(), eligible.end());
    std::vector<std::uint32_t> pick(ids.size(), 0);  // 1-based own entry to take; 0: not held out
    for (const auto c : eligible) pick[c] = static_cast<std::uint32_t>(drawBelow(rng, ownCount[c])) + 1;

    std::vector<std::string> queryOf(ids.size());
    std::vector<std::uint32_t> seen(ids.size(), 0);
    for (const auto& entry : dictionary) {
        if (entry.ids.size() != 1) continue;
        const auto c = conceptOf.at(entry.ids.front());
        if (pick[c] != 0 && ++seen[c] == pick[c]) queryOf[c] = entry.name;
    }
    for (const auto c : eligible) {
        holdout.conceptIds.emplace_back(ids[c]);
        holdout.queryNames.push_back(std::move(queryOf[c]));
    }
    holdout.sortedConcepts_ = holdout.conceptIds;
    std::sort(holdout.sortedConcepts_.begin(), holdout.sortedConcepts_.end());
    holdout.sortedNames_ = holdout.queryNames;
    std::sort(holdout.sortedNames_.begin(), holdout.sortedNames_.end());
    return holdout;
}

retrieval::NameDictionary withoutQueryNames(retrieval::NameDictionary dictionary, const KbHoldout& holdout) {
    if (holdout.empty()) return dictionary;
    std::erase_if(dictionary, [&](const retrieval::DictionaryEntry& entry) { return holdout.holdsName(entry.name); });
    return dictionary;
}

eval::QuerySet holdoutQueries(const KbHoldout& holdout) {
    eval::QuerySet set;
    set.queries.reserve(holdout.conceptIds.size());
    for (std::size_t i = 0; i < holdout.conceptIds.size(); ++i) {
        eval::EvalQuery query;
        query.mention = holdout.queryNames[i];
        query.expanded = holdout.queryNames[i];
        query.idColumn = holdout.conceptIds[i];
        query.parts = {holdout.queryNames[i]};
        query.goldIds = {holdout.conceptIds[i]};
        query.sourceFile = "KB holdout";
        set.queries.push_back(std::move(query));
    }
    set.statistics.queries = set.queries.size();
    set.statistics.parts = set.queries.size();
    set.statistics.mentions = set.queries.size();
    return set;
}

}  // namespace linkscope::train
