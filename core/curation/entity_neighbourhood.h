#pragma once
// The points of an entity's embedding plot (after Le & Nguyen's Figure 4): the mentions
// of the project whose gold names the entity, the entity's KB names, and the same for the
// entities that compete with it for those mentions, with the distances between all their texts.
// Classical MDS (eval/classical_mds.h) then lays them out in the plane.
//
// Distances are cosine distances (1 - cosine) between vectors of the texts. By default the
// vectors are BioSyn's sparse TF-IDF (character 1-2 grams of the BioSyn-normalized text, fitted
// on the plotted texts themselves), so the plot needs no encoder and works on the demo project;
// an encoder can be plugged in through NeighbourhoodOptions::embed.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/progress.h"

namespace linkscope {
struct SplitCorpus;
}
namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::curation {

class SparseCandidates;

/// Dense vectors of texts: texts.size() rows of equal length, concatenated (row-major).
using TextEmbedding = std::function<std::vector<float>(std::span<const std::string> texts)>;

enum class PointKind : std::uint8_t { Mention, Name };

struct NeighbourhoodPoint {
    std::string label;   ///< the mention's text or the KB name, as written
    std::string entity;  ///< canonical primary id of the entity the point is drawn for
    PointKind kind = PointKind::Mention;
    // Mentions only: where the mention is (offsets in characters of title + " " + abstract).
    std::string split;
    std::string pmid;
    std::size_t start = 0;
    std::size_t end = 0;
};

struct NeighbourhoodEntity {
    std::string id;             ///< canonical primary id
    std::string preferredName;  ///< empty for an entity without names
    /// How strongly it competes (sum over the focus entity's query texts, weighted by their
    /// mention counts, of its TF-IDF score when ranked in the top k); 0 for the focus entity.
    double competition = 0.0;
    std::size_t mentionsInProject = 0;  ///< linked mentions in all splits (before sampling)
    std::size_t mentionPoints = 0;      ///< of which plotted
    std::size_t namePoints = 0;
};

struct NeighbourhoodOptions {
    std::size_t competitors = 5;          ///< other entities plotted besides the focus
    std::size_t maxPoints = 400;          ///< all points together; mentions are sampled beyond it
    std::size_t candidatesPerQuery = 10;  ///< depth of the sparse ranking of each query text
    std::size_t maxQueries = 200;         ///< distinct query texts ranked (the most frequent)
    /// Vectors for the distances; empty: the sparse TF-IDF described above.
    TextEmbedding embed;
};

struct EntityNeighbourhood {
    /// The focus entity first, then its competitors from the strongest.
    std::vector<NeighbourhoodEntity> entities;
    /// Grouped by entity (in `entities` order), each entity's names before its mentions;
    /// mentions in project order (split, document, offset).
    std::vector<NeighbourhoodPoint> points;
    /// points.size() squared, row-major, symmetric, zero diagonal, values in [0, 2].
    std::vector<double> distances;
    std::size_t sampledOutMentions = 0;  ///< linked mentions left out to respect maxPoints

    double distance(std::size_t i, std::size_t j) const noexcept { return distances[i * points.size() + j]; }
};

/// Gathers the plot of `entityId` (any id the KB knows it by: "D006816", "MESH:D006816", an
/// alternative id). Mentions count for an entity when their gold ids contain its primary or an
/// alternative id; a composite mention that names several plotted entities is drawn once, for
/// the first of them. Competitors are ranked by the sparse candidates of the focus entity's
/// mention texts (its names when it has no mention). Points beyond maxPoints: names are kept
/// first (preferred name first), the remaining room is shared fairly among the entities'
/// mentions, and each entity's mentions are thinned evenly in project order, so the same
/// project gives the same plot. Throws Error for an unknown entity or a bad embedding result,
/// Cancelled when `progress` asks to stop.
EntityNeighbourhood gatherEntityNeighbourhood(const kb::KnowledgeBase& kb, std::span<const SplitCorpus> splits,
                                              const SparseCandidates& candidates, std::string_view entityId,
                                              const NeighbourhoodOptions& options = {},
                                              const ProgressSink& progress = {});

/// Cosine distances (1 - cosine, n x n row-major) between BioSyn TF-IDF vectors of `texts`
/// (normalized as the BioSyn dictionary is), fitted on `texts`. A text without any term is at
/// distance 1 from every other text.
std::vector<double> tfidfCosineDistances(std::span<const std::string> texts);
/// Cosine distances between the rows `embed` returns for `texts`; throws Error when it returns
/// a number of values that is not a multiple of texts.size().
std::vector<double> denseCosineDistances(std::span<const std::string> texts, const TextEmbedding& embed);

}  // namespace linkscope::curation
