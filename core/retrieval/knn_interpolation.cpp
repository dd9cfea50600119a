#include "retrieval/knn_interpolation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

#include "util/error.h"

namespace linkscope::retrieval {
namespace {

// Shortest round-trip spelling, so an error shows the value the caller actually passed
// (std::to_string would print 1e-9 as 0.000000).
std::string spell(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return {buffer, result.ptr};
}

bool ranksBefore(const InterpolatedEntity& a, const InterpolatedEntity& b) noexcept {
    if (a.probability != b.probability) return a.probability > b.probability;
    if (a.modelScore != b.modelScore) return a.modelScore > b.modelScore;
    return a.entity < b.entity;
}

}  // namespace

KnnSettings KnnSettings::ncbi() { return {.k = 4, .lambda = 0.1, .beta1 = 0.01, .beta2 = 1.0}; }

KnnSettings KnnSettings::bc5cdr() { return {.k = 4, .lambda = 0.1, .beta1 = 0.05, .beta2 = 5.0}; }

void validate(const KnnSettings& settings) {
    if (settings.k == 0) throw Error("kNN interpolation: k must be > 0 (got 0)");
    // Written as !(inside) so that NaN fails too.
    if (!(settings.lambda >= 0.0 && settings.lambda <= 1.0))
        throw Error("kNN interpolation: lambda must lie in [0, 1] (got " + spell(settings.lambda) + ")");
    if (!(settings.beta1 > 0.0 && std::isfinite(settings.beta1)))
        throw Error("kNN interpolation: beta1 must be finite and > 0 (got " + spell(settings.beta1) + ")");
    if (!(settings.beta2 > 0.0 && std::isfinite(settings.beta2)))
        throw Error("kNN interpolation: beta2 must be finite and > 0 (got " + spell(settings.beta2) + ")");
}

std::vector<InterpolatedEntity> interpolate(std::span<const EntityScore> model,
                                            std::span<const EntityNeighbor> neighbors, const KnnSettings& settings) {
    validate(settings);
    if (neighbors.size() > settings.k)
        throw Error("kNN interpolation: " + std::to_string(neighbors.size()) +
                    " neighbours given for k = " + std::to_string(settings.k));

    // One row per distinct entity, in first-seen order; `rowOf` finds an entity's row.
    std::vector<InterpolatedEntity> rows;
    std::unordered_map<std::uint32_t, std::size_t> rowOf;
    rows.reserve(model.size());
    rowOf.reserve(model.size());
    for (const auto& scored : model) {
        if (!std::isfinite(scored.score))
            throw Error("kNN interpolation: the model score of entity " + std::to_string(scored.entity) +
                        " is not finite");
        const auto [it, inserted] = rowOf.try_emplace(scored.entity, rows.size());
        if (inserted)
            rows.push_back({.entity = scored.entity, .modelScore = scored.score});
        else
            rows[it->second].modelScore = std::max(rows[it->second].modelScore, scored.score);
    }
    for (const auto& neighbor : neighbors) {
        if (!std::isfinite(neighbor.similarity))
            throw Error("kNN interpolation: the similarity of a neighbour of entity " +
                        std::to_string(neighbor.entity) + " is not finite");
        const auto it = rowOf.find(neighbor.entity);
        if (it == rowOf.end())
            throw Error("kNN interpolation: neighbour entity " + std::to_string(neighbor.entity) +
                        " has no model score (score every entity the neighbours name)");
        auto& row = rows[it->second];
        row.neighborSimilarity =
            row.neighbors == 0 ? neighbor.similarity : std::max(row.neighborSimilarity, neighbor.similarity);
        ++row.neighbors;
    }
    if (rows.empty()) return rows;

    // p_model, eq. 4: exp((s - s_max) / beta1) is at most 1 and the best entity's term is
    // exactly 1, so the sum neither overflows nor underflows to 0 at any temperature.
    const float bestScore = std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
                                return a.modelScore < b.modelScore;
                            })->modelScore;
    double modelSum = 0.0;
    for (auto& row : rows) {
        row.modelProbability = std::exp((static_cast<double>(row.modelScore) - bestScore) / settings.beta1);
        modelSum += row.modelProbability;
    }
    for (auto& row : rows) row.modelProbability /= modelSum;

    // p_kNN, eq. 5 with max aggregation: the max over an entity's neighbours of exp(g / beta2)
    // is exp(max g / beta2), shifted by the best similarity overall as above. Computed even at
    // lambda = 0, for inspection.
    if (!neighbors.empty()) {
        double bestSimilarity = -std::numeric_limits<double>::infinity();
        for (const auto& row : rows)
            if (row.neighbors > 0)
                bestSimilarity = std::max(bestSimilarity, static_cast<double>(row.neighborSimilarity));
        double knnSum = 0.0;
        for (auto& row : rows) {
            if (row.neighbors == 0) continue;
            row.knnProbability =
                std::exp((static_cast<double>(row.neighborSimilarity) - bestSimilarity) / settings.beta2);
            knnSum += row.knnProbability;
        }
        for (auto& row : rows) row.knnProbability /= knnSum;
    }

    // Eq. 6; without neighbours there is nothing to interpolate with, and p is p_model rather than
    // p_model scaled down by 1 - lambda.
    for (auto& row : rows)
        row.probability = neighbors.empty()
                              ? row.modelProbability
                              : settings.lambda * row.knnProbability + (1.0 - settings.lambda) * row.modelProbability;
    std::sort(rows.begin(), rows.end(), ranksBefore);
    return rows;
}

}  // namespace linkscope::retrieval
