#pragma once
// Linking with what is already linked: a method's own ranking (train/method_linker.h), turned
// into a ranking of entities and combined with a datastore of linked mentions
// (retrieval/knn_datastore.h) in one of two ways:
//
//   knn    kNN-BioEL's inference (Lin et al. 2024, eq. 4-6): p = lambda p_kNN + (1 - lambda)
//          p_model, p_model a softmax over the model's entity scores with temperature beta1,
//          p_kNN the max-aggregated softmax over the k nearest keys with temperature beta2
//          (retrieval/knn_interpolation.h).
//   sieve  Xu & Bethard's (2021) search strategies and sieves: search the ontology's names (O),
//          the datastore's mentions (D) or both (OD), text by text (-T) or by concept vectors
//          averaged over each concept's texts (-C), by cosine; a sieve takes the first stage
//          whose best cosine reaches the threshold (0.95), the last stage otherwise, with an
//          optional exact-match stage in front (retrieval/sieve.h).
//
// An entity's model score is the best score of its dictionary entries (an entry that names
// several entities, an unresolved homonym, scores for each of them). The model's top
// `modelDepth` entries give p_model; an entity that only the neighbours name is scored exactly
// (MethodLinker::score), so no neighbour is dropped for want of a model score. The softmax of
// p_model runs over these entities, not the whole KB (a deviation from eq. 4 that changes
// nothing measurable: with beta1 = 0.01 an entity below the top 64 weighs e^-10 or less).
//
// The sieve compares vectors by cosine whatever the method's training similarity, as Xu &
// Bethard do at inference. It is meant for methods that encode mentions and names alike
// (triplet, knn-bioel, biosyn's dense half): for a context method (belhd, prototype-srn) the
// mention vectors and the name vectors live in different inputs, and the O and OD stages
// compare unlike things -- allowed, but its results say so.
//
// The dictionary's first `ontologyEntries` entries are the KB's names (O); BioSyn's evaluation
// dictionary appends the training mentions after them, which the sieve leaves out of O (they
// are D, in the datastore).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluate.h"
#include "retrieval/knn_interpolation.h"
#include "retrieval/name_dictionary.h"
#include "retrieval/sieve.h"
#include "train/method_linker.h"

namespace linkscope::retrieval {
class KnnDatastore;
struct DatastoreNeighbor;
}  // namespace linkscope::retrieval

namespace linkscope::curation {

enum class LinkMode { Model, Knn, Sieve };
/// "model", "knn", "sieve" (inline: the CLI's option parsing needs it in builds without LibTorch).
inline std::string_view linkModeName(LinkMode mode) noexcept {
    switch (mode) {
        case LinkMode::Model:
            return "model";
        case LinkMode::Knn:
            return "knn";
        case LinkMode::Sieve:
            return "sieve";
    }
    return "model";
}

struct AugmentedOptions {
    LinkMode mode = LinkMode::Model;
    retrieval::KnnSettings knn;   ///< mode knn
    retrieval::SieveSpec sieve;   ///< mode sieve (default: the single stage OD-T)
    std::size_t modelDepth = 64;  ///< model candidates that make p_model
    /// Dictionary entries [0, ontologyEntries) are the KB's names (O); all of them by default.
    std::size_t ontologyEntries = std::numeric_limits<std::size_t>::max();
};

/// One ranked entity with the parts of its score, for the candidate view and the reports.
struct RankedEntity {
    std::uint32_t entity = 0;         ///< AugmentedLinker::entityId(entity)
    std::uint32_t entry = 0;          ///< the dictionary entry that stands for it (its best)
    double score = 0.0;               ///< what the ranking sorts by: p (knn), cosine (sieve), model score
    float modelScore = 0.0f;          ///< the method's score of `entry` (knn, model)
    float dense = 0.0f;               ///< its dense part
    float sparse = 0.0f;              ///< its sparse part (biosyn)
    double modelProbability = 0.0;    ///< knn: p_model
    double knnProbability = 0.0;      ///< knn: p_kNN
    float neighborSimilarity = 0.0f;  ///< knn: best neighbour of this entity (0: none)
    std::size_t neighbors = 0;        ///< knn: neighbours naming it
    int sieveStage = -1;              ///< sieve: the stage that decided (0 = exact when asked), -1 otherwise
};

/// The model's part of a mention's ranking: it does not change when the datastore does, so the
/// feedback loop and the simulated curation keep it.
using ModelList = std::vector<train::LinkedCandidate>;

class AugmentedLinker {
public:
    /// model, dictionary (the one the model was built on) and datastore (may be null: no D, no
    /// kNN) must outlive the linker; the datastore may change between calls (curation).
    /// Error when the datastore's dimension differs from the model's, or for invalid settings.
    AugmentedLinker(const train::MethodLinker& model, const retrieval::NameDictionary& dictionary,
                    const retrieval::KnnDatastore* datastore, AugmentedOptions options);
    AugmentedLinker(AugmentedLinker&&) noexcept;
    AugmentedLinker& operator=(AugmentedLinker&&) noexcept;
    ~AugmentedLinker();

    /// The mention inputs as the model encodes them (also the datastore's keys).
    std::vector<float> encode(std::span<const std::string> inputs) const;
    /// The model's top lists (modelDepth entries). In sieve mode, which uses no model, the
    /// nearest modelDepth ontology names by cosine instead (entry, cosine), which its O-T stages
    /// read rather than searching again (empty lists when no stage searches O-T).
    std::vector<ModelList> modelLists(std::span<const std::string> inputs, std::span<const float> vectors) const;
    /// The top k entities of each input, given its vector and its model list. In kNN mode,
    /// `neighbors` (when given) receives each input's knn.k nearest datastore keys, the ones the
    /// interpolation read (so that a caller needing them too does not search again). In sieve
    /// mode, when a D-T or OD-T stage searched the keys for these inputs, it receives each one's
    /// nearest key (a list of one; none for an empty datastore), with the similarity a search()
    /// of `vectors` gives; when no stage did, and in model mode, it is left empty.
    std::vector<std::vector<RankedEntity>> combine(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::size_t k, std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors = nullptr) const;
    /// combine() in kNN mode with each input's knn.k nearest datastore keys given instead of
    /// searched: lists that search() gave, kept up to date by the caller (mergeNeighbor for a
    /// key added since), give exactly what combine() gives, without a search of every key.
    /// Error in another mode or for a count of lists other than the inputs'.
    std::vector<std::vector<RankedEntity>> combineWith(
        std::span<const std::string> inputs, std::span<const float> vectors, std::span<const ModelList> models,
        std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors, std::size_t k) const;
    /// encode + modelLists + combine.
    std::vector<std::vector<RankedEntity>> link(std::span<const std::string> inputs, std::size_t k) const;
    /// link() as the evaluation engine calls it: each entity as the entry that stands for it
    /// (an entry standing for several ranked entities is listed once, at the first).
    eval::RankFn rankFunction() const;

    /// The dictionary's canonical ids, in order of first appearance. A datastore key whose entity
    /// the dictionary lacks is passed over (BioSyn's dictionary holds every KB entity and every
    /// training id, so only a key made with another KB can be such).
    const std::string& entityId(std::uint32_t entity) const;
    std::optional<std::uint32_t> findEntity(std::string_view id) const;
    const AugmentedOptions& options() const noexcept;
    const train::MethodLinker& model() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::curation
