#pragma once
// A curator's decisions fed back into linking at once: an accepted or corrected link becomes a
// key of the datastore (the mention's vector, the chosen entity), so that the very next
// prediction of a similar mention reads it -- through kNN-BioEL's interpolation or as a D
// ("training data") text of Xu & Bethard's sieve. Undo removes the key again.
//
// The loop knows the mentions of the corpus being curated (targets) and keeps what does not
// change with the datastore -- each target's vector and the model's own candidate list -- so a
// prediction after a decision costs one datastore search and the combination, not an encoding.
//
// A rejection adds nothing: the datastore holds positive links only, and kNN-BioEL's p_kNN has
// no way to count a "not this entity" against one.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "curation/augmented_linker.h"
#include "curation/target_vectors.h"

namespace linkscope::retrieval {
class KnnDatastore;
}

namespace linkscope::curation {

enum class DecisionKind { Accept, Correct, Reject };
std::string_view decisionKindName(DecisionKind kind) noexcept;  ///< "accept", "correct", "reject"

/// A mention the loop links: where it is, its surface form, and what the method reads.
struct LinkTarget {
    std::string document;
    std::size_t start = 0;
    std::size_t end = 0;
    /// The normalized surface form (the query part): what "the same surface form" compares, and
    /// the source text of the key a decision adds (what the sieve's exact stage matches).
    std::string text;
    std::string input;  ///< the method's mention input (train/method_inputs.h)
};

/// Another mention with the decided mention's surface form, and its top entity before and after
/// the decision (entity ids; empty when nothing is ranked).
struct AffectedMention {
    std::size_t target = 0;
    std::string before;
    std::string after;
    bool changed() const noexcept { return before != after; }
};

struct DecisionEffect {
    std::optional<std::uint64_t> key;          ///< the key added (accept, correct)
    std::vector<AffectedMention> sameSurface;  ///< every other target with the same text
};

class FeedbackLoop {
public:
    /// linker must read `datastore` (the same object) and, like the datastore, outlive the loop.
    /// The targets' vectors stay float up to floatVectorBudget bytes, half precision above
    /// (target_vectors.h).
    FeedbackLoop(const AugmentedLinker& linker, retrieval::KnnDatastore& datastore, std::vector<LinkTarget> targets,
                 std::size_t floatVectorBudget = TargetVectors::kDefaultFloatBudget);

    const std::vector<LinkTarget>& targets() const noexcept { return targets_; }

    /// Encodes the targets and computes their model lists once (batched), for those not done yet.
    void prepare(std::span<const std::size_t> targets);
    /// The top k entities of each target with the datastore as it is now; `neighbors` as
    /// AugmentedLinker::combine fills it.
    std::vector<std::vector<RankedEntity>> predict(
        std::span<const std::size_t> targets, std::size_t k,
        std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors = nullptr);

    /// predict() in kNN mode with each target's knn.k nearest datastore keys given, not searched
    /// (AugmentedLinker::combineWith: the caller keeps the lists as search() would give them).
    std::vector<std::vector<RankedEntity>> predictWith(
        std::span<const std::size_t> targets, std::size_t k,
        std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors);

    /// Records a decision on a target: accept / correct add a key (the target's vector, `entity`,
    /// its text as source), reject adds none; the next predict() reads it. With listSameSurface,
    /// sameSurface lists every other target with the same text with its top entity before and
    /// after (two linkings of those targets; without it, recording is one datastore insertion).
    /// Error when the entity is not in the linker's dictionary or the target is out of range.
    DecisionEffect record(std::size_t target, std::string_view entity, DecisionKind kind, bool listSameSurface = true);
    /// Takes a decision's key back; false when the datastore has no such key.
    bool undo(std::uint64_t key);

    /// A prepared target's vector, as the model encoded it (raw; rounded when the loop keeps half
    /// precision: the vector its key and its datastore searches use); Error when it is not prepared.
    std::vector<float> vector(std::size_t target) const;
    /// The dot product of `values` with a prepared target's vector (as vector() gives it), without
    /// a copy: a pass over every target (a decision's reach) reads the vectors in place.
    double dot(std::span<const float> values, std::size_t target) const { return vectors_.dot(values, target); }
    /// Whether the targets' vectors are kept in half precision.
    bool halfPrecision() const noexcept { return vectors_.halfPrecision(); }
    /// Bytes held per target: its vector, its model list and its text and input; for reports.
    std::size_t memoryBytes() const noexcept;

    /// The other targets whose normalized text equals this one's, in target order.
    std::vector<std::size_t> sameSurface(std::size_t target) const;

private:
    // What combine() reads of some targets (prepared first).
    struct Batch {
        std::vector<std::string> inputs;
        std::vector<float> vectors;
        std::vector<ModelList> models;
    };
    Batch batchOf(std::span<const std::size_t> targets);
    void checkTarget(std::size_t target) const;
    std::vector<std::string> topEntities(std::span<const std::size_t> targets);

    const AugmentedLinker* linker_;
    retrieval::KnnDatastore* datastore_;
    std::vector<LinkTarget> targets_;
    std::unordered_map<std::string, std::vector<std::size_t>> byText_;
    TargetVectors vectors_;
    std::vector<ModelList> models_;  // per target, once prepared
};

}  // namespace linkscope::curation
