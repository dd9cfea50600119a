#pragma once
// kNN-BioEL's inference (Lin et al. 2024, section 2.3, eq. 4-6): the model's distribution over
// entities is interpolated with a distribution read off the k training mentions nearest to the
// query,
//     p(y|x) = lambda * p_kNN(y|x) + (1 - lambda) * p_model(y|x).
//  - p_model (eq. 4) is a softmax of the entity scores s(x, e) at temperature beta1. The paper
//    takes it over the whole KB; here it runs over the entities the caller passes (the model's
//    top candidates plus every entity a neighbour names), and entities outside that set get 0.
//    With beta1 = 0.01..0.05 and the top 64 in the set, the mass left out is negligible: an
//    entity 0.5 below the best score weighs exp(-10) or less against it.
//  - p_kNN (eq. 5) gives each entity the MAX of exp(g / beta2) over the neighbours naming it (the
//    paper's footnote 2 found max better than kNN-LM's sum), normalized over the entities the
//    neighbours name; the others get 0.
// Pure arithmetic: the caller encodes, searches the datastore and hands scores in.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace linkscope::retrieval {

/// Hyper-parameters of the interpolation. The defaults are the paper's NCBI Disease settings.
struct KnnSettings {
    std::size_t k = 4;    ///< neighbours retrieved per query
    double lambda = 0.1;  ///< weight of p_kNN
    double beta1 = 0.01;  ///< temperature of p_model
    double beta2 = 1.0;   ///< temperature of p_kNN

    /// The paper's settings (Implementation details): lambda = 0.1, k = 4, and beta1/beta2 of
    /// 0.01/1.0 on NCBI Disease, 0.05/5.0 on BC5CDR.
    static KnnSettings ncbi();
    static KnnSettings bc5cdr();
};

/// Throws Error naming the offending value unless k > 0, 0 <= lambda <= 1 and both betas are
/// finite and > 0.
void validate(const KnnSettings& settings);

/// The model's score s(x, e) of one entity (an inner product or a cosine).
struct EntityScore {
    std::uint32_t entity = 0;
    float score = 0.0f;
};

/// One retrieved datastore key: the entity its training mention was labelled with and its
/// similarity g to the query.
struct EntityNeighbor {
    std::uint32_t entity = 0;
    float similarity = 0.0f;
};

/// One entity's interpolated probability and the parts it was made of.
struct InterpolatedEntity {
    std::uint32_t entity = 0;
    double probability = 0.0;         ///< the interpolated p
    double modelProbability = 0.0;    ///< p_model
    double knnProbability = 0.0;      ///< p_kNN (0 when no neighbour names the entity)
    float modelScore = 0.0f;          ///< s(x, e) as given (the highest, for an entity given twice)
    float neighborSimilarity = 0.0f;  ///< best similarity among the neighbours naming it (0 when none)
    std::size_t neighbors = 0;        ///< how many of the neighbours name it
};

/// Every entity of `model` (each once), by probability descending, ties by model score
/// descending, then entity ascending. An entity listed twice in `model` keeps its highest
/// score. With no neighbours or lambda = 0, p = p_model (no neighbours: nothing to interpolate
/// with, rather than a p scaled down by 1 - lambda). Computed in double with the maxima
/// subtracted before exponentiating, so temperatures down to 0.001 neither overflow nor turn
/// into NaN. Throws Error for invalid settings, more than settings.k neighbours, a non-finite
/// score or similarity, or a neighbour entity missing from `model` (the caller must score every
/// entity a neighbour names), naming the entity.
std::vector<InterpolatedEntity> interpolate(std::span<const EntityScore> model,
                                            std::span<const EntityNeighbor> neighbors, const KnnSettings& settings);

}  // namespace linkscope::retrieval
