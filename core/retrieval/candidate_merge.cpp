#include "retrieval/candidate_merge.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "util/error.h"

namespace linkscope::retrieval {

std::vector<Candidate> mergeCandidates(std::span<const std::vector<Candidate>> lists, std::size_t k, MergeOrder order) {
    std::vector<Candidate> merged;
    std::unordered_set<std::uint32_t> seen;
    const auto take = [&](const Candidate& candidate) {
        if (merged.size() < k && seen.insert(candidate.entry).second) merged.push_back(candidate);
    };
    if (order == MergeOrder::Concatenate) {
        for (const auto& list : lists)
            for (const auto& candidate : list) take(candidate);
        return merged;
    }
    std::size_t longest = 0;
    for (const auto& list : lists) longest = std::max(longest, list.size());
    for (std::size_t rank = 0; rank < longest && merged.size() < k; ++rank)
        for (const auto& list : lists)
            if (rank < list.size()) take(list[rank]);
    return merged;
}

std::vector<ConceptGroup> groupByConcept(std::span<const Candidate> ranked, const NameDictionary& dictionary) {
    std::vector<ConceptGroup> groups;
    std::map<std::vector<std::string>, std::size_t> groupOf;  // sorted id set -> position in groups
    std::vector<std::string> ids;
    for (std::size_t rank = 0; rank < ranked.size(); ++rank) {
        const auto& candidate = ranked[rank];
        if (candidate.entry >= dictionary.size())
            throw Error("candidate entry " + std::to_string(candidate.entry) + " is outside the dictionary of " +
                        std::to_string(dictionary.size()) + " names");
        ids = dictionary[candidate.entry].ids;
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        const auto [at, inserted] = groupOf.try_emplace(ids, groups.size());
        if (inserted) groups.push_back({ids, {}, candidate.score, rank});
        groups[at->second].entries.push_back(candidate.entry);
    }
    return groups;
}

}  // namespace linkscope::retrieval
