#include "curation/mention_pairs.h"

#include <torch/torch.h>

#include <algorithm>
#include <string>

#include "util/error.h"

namespace linkscope::curation {

std::vector<std::vector<std::pair<std::uint32_t, float>>> pairsAboveThresholds(std::span<const float> units,
                                                                               std::size_t dimension,
                                                                               std::span<const float> thresholds,
                                                                               float tie,
                                                                               const ProgressSink* progress) {
    if (dimension == 0 || units.size() % dimension != 0)
        throw Error("mention pairs: " + std::to_string(units.size()) + " values are not rows of " +
                    std::to_string(dimension));
    const auto n = static_cast<std::int64_t>(units.size() / dimension);
    if (thresholds.size() != static_cast<std::size_t>(n))
        throw Error("mention pairs: " + std::to_string(thresholds.size()) + " thresholds for " + std::to_string(n) +
                    " rows");
    std::vector<std::vector<std::pair<std::uint32_t, float>>> pairs(static_cast<std::size_t>(n));
    if (n == 0) return pairs;
    torch::NoGradGuard noGrad;
    const auto all =
        torch::from_blob(const_cast<float*>(units.data()), {n, static_cast<std::int64_t>(dimension)}, torch::kFloat);
    const auto limits = torch::from_blob(const_cast<float*>(thresholds.data()), {1, n}, torch::kFloat) - tie;
    constexpr std::int64_t kBlock = 512;  // rows per product: 512 x n floats at a time
    for (std::int64_t first = 0; first < n; first += kBlock) {
        if (progress) {
            progress->checkCancelled();
            (*progress)("Finding what each decision reaches", static_cast<double>(first) / static_cast<double>(n));
        }
        const std::int64_t rows = std::min(kBlock, n - first);
        const auto cosines = torch::mm(all.narrow(0, first, rows), all.t()).contiguous();
        const auto hits = torch::nonzero(cosines >= limits).contiguous();  // (row, column), row-major order
        const auto* index = hits.data_ptr<std::int64_t>();
        const auto* values = cosines.data_ptr<float>();
        for (std::int64_t h = 0; h < hits.size(0); ++h) {
            const std::int64_t row = index[2 * h], column = index[2 * h + 1];
            const auto t = static_cast<std::size_t>(first + row);
            if (static_cast<std::size_t>(column) == t) continue;
            pairs[t].emplace_back(static_cast<std::uint32_t>(column), values[row * n + column]);
        }
    }
    return pairs;
}

}  // namespace linkscope::curation
