#include "curation/entity_vector_space.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace linkscope::curation {

using retrieval::EntityScore;

void normalizeRow(std::span<float> row) noexcept {
    double norm = 0.0;
    for (const float x : row) norm += double{x} * x;
    if (norm <= 0.0) return;
    const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : row) x *= scale;
}

std::vector<float> normalizedRows(std::span<const float> rows, std::size_t dimension) {
    std::vector<float> out(rows.begin(), rows.end());
    for (std::size_t start = 0; start + dimension <= out.size(); start += dimension)
        normalizeRow(std::span<float>(out).subspan(start, dimension));
    return out;
}

std::vector<EntityScore> distinctTop(std::vector<EntityScore> ranked, std::size_t k) {
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const EntityScore& a, const EntityScore& b) { return a.score > b.score; });
    std::vector<EntityScore> out;
    std::unordered_set<std::uint32_t> seen;
    for (const auto& hit : ranked) {
        if (out.size() == k) break;
        if (seen.insert(hit.entity).second) out.push_back(hit);
    }
    return out;
}

void EntityVectorSpace::build(std::span<const float> rows, std::size_t dimension,
                              std::vector<std::vector<std::uint32_t>> entities) {
    rowEntities = std::move(entities);
    index.reset();
    if (!rowEntities.empty()) index = retrieval::DenseIndex::build(rows, dimension, "sieve search space");
}

std::vector<std::vector<EntityScore>> EntityVectorSpace::search(std::span<const float> queries, std::size_t dimension,
                                                                std::size_t k) const {
    const std::size_t count = queries.size() / dimension;
    std::vector<std::vector<EntityScore>> out(count);
    if (empty() || k == 0) return out;
    std::vector<std::size_t> pending(count);
    for (std::size_t q = 0; q < count; ++q) pending[q] = q;
    for (std::size_t depth = std::min(index->size(), k * 4); !pending.empty();
         depth = std::min(index->size(), depth * 4)) {
        std::vector<float> batch;
        batch.reserve(pending.size() * dimension);
        for (const std::size_t q : pending)
            batch.insert(batch.end(), queries.begin() + static_cast<std::ptrdiff_t>(q * dimension),
                         queries.begin() + static_cast<std::ptrdiff_t>((q + 1) * dimension));
        const auto found = index->search(batch, depth);
        std::vector<std::size_t> again;
        for (std::size_t i = 0; i < pending.size(); ++i) {
            std::vector<EntityScore> hits;
            for (const auto& candidate : found[i])
                for (const std::uint32_t entity : rowEntities[candidate.entry])
                    hits.push_back({entity, std::clamp(candidate.score, -1.0f, 1.0f)});
            auto top = distinctTop(std::move(hits), k);
            if (top.size() < k && depth < index->size())
                again.push_back(pending[i]);
            else
                out[pending[i]] = std::move(top);
        }
        pending = std::move(again);
    }
    return out;
}

}  // namespace linkscope::curation
