#include "train/collapse_check.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include "util/error.h"

namespace linkscope::train {

bool CollapseCheck::fewAnswers() const noexcept {
    return parts != 0 && double(distinctTop1) < kCollapseAnswerShare * double(goldEntities);
}

bool CollapseCheck::identicalVectors() const noexcept { return meanCosine >= kCollapseCosine; }  // false for NaN

std::string CollapseCheck::warning() const {
    if (!collapsed()) return {};
    std::ostringstream text;
    text << "the model has collapsed: ";
    if (fewAnswers())
        text << "it answers " << distinctTop1 << " distinct entit" << (distinctTop1 == 1 ? "y" : "ies")
             << " at rank 1 for " << parts << " dev mentions of " << goldEntities << " gold entities";
    if (fewAnswers() && identicalVectors()) text << ", and ";
    if (identicalVectors())
        text << "its dev mention vectors are identical (mean pairwise cosine " << std::fixed << std::setprecision(8)
             << meanCosine << "): it ignores the mention";
    return text.str();
}

double meanPairwiseCosine(std::span<const float> rows, std::size_t dimension) {
    if (dimension == 0 || rows.size() % dimension != 0)
        throw Error("meanPairwiseCosine: " + std::to_string(rows.size()) + " values are not rows of " +
                    std::to_string(dimension));
    const std::size_t n = rows.size() / dimension;
    if (n < 2) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> sum(dimension, 0.0);
    std::size_t units = 0;  // rows of non-zero length, whose unit vector has |u|^2 = 1
    for (std::size_t r = 0; r < n; ++r) {
        const float* row = rows.data() + r * dimension;
        double norm = 0.0;
        for (std::size_t d = 0; d < dimension; ++d) norm += double(row[d]) * double(row[d]);
        if (!(norm > 0.0) || !std::isfinite(norm)) continue;
        ++units;
        const double scale = 1.0 / std::sqrt(norm);
        for (std::size_t d = 0; d < dimension; ++d) sum[d] += double(row[d]) * scale;
    }
    double squared = 0.0;
    for (const double value : sum) squared += value * value;
    return (squared - double(units)) / (double(n) * double(n - 1));
}

CollapseCheck checkCollapse(const eval::EvalResult& result, std::span<const eval::EvalQuery> queries,
                            const retrieval::NameDictionary& dictionary, std::span<const float> mentionVectors,
                            std::size_t dimension) {
    CollapseCheck check;
    std::set<std::vector<std::string>> answers;
    for (const auto& mention : result.mentions)
        for (const auto& part : mention.parts) {
            ++check.parts;
            if (!part.candidates.empty() && part.candidates.front().entry < dictionary.size())
                answers.insert(dictionary[part.candidates.front().entry].ids);
        }
    check.distinctTop1 = answers.size();
    std::set<std::string> gold;
    for (const auto& query : queries) gold.insert(query.goldIds.begin(), query.goldIds.end());
    check.goldEntities = gold.size();
    check.meanCosine = meanPairwiseCosine(mentionVectors, dimension);
    return check;
}

}  // namespace linkscope::train
