#pragma once
// Which mentions a datastore key would reach BEFORE it is added: the reach a curator sees
// before making a decision.
//
// A mention linked with the datastore reads its k nearest keys (kNN-BioEL's k; a sieve's D
// stage reads the nearest one, k = 1). A new key can change that mention's ranking only when it
// enters those k: when its cosine with the mention is above the k-th nearest key's, or the
// datastore holds fewer than k keys. So the reach of a key is the set of mentions for which
// that holds: an upper bound of what the decision changes (entering the k nearest does not
// always move the top entity, which the linker's combination decides).
//
// The reach keeps, per mention ("target"), the similarities of its k nearest keys, so asking
// what a vector would reach is one dot product per target (no datastore search), and adding
// a key updates only the targets it reaches. A key removed (undo) or added elsewhere needs
// refresh() of the targets concerned.
//
// Cosines are computed here in float over normalized vectors, as the datastore computes them;
// a key whose cosine equals a target's k-th within float rounding may be counted either way.
// On equal cosines the datastore ranks the older key first, so a new key must be strictly
// above the k-th to enter.
#include <cstddef>
#include <span>
#include <vector>

namespace linkscope::retrieval {

class KnnDatastore;

class DatastoreReach {
public:
    /// targets: row-major raw vectors, datastore.dimension() values each (normalized here);
    /// k > 0. Searches the datastore once for every target. The datastore must outlive the
    /// reach. Error for a wrong size, k == 0, or a zero or non-finite target.
    DatastoreReach(const KnnDatastore& datastore, std::span<const float> targets, std::size_t k);

    std::size_t size() const noexcept { return count_; }
    std::size_t k() const noexcept { return k_; }
    /// The normalized vector of target t.
    std::span<const float> target(std::size_t t) const;
    /// The cosine a new key must exceed to enter target t's k nearest (-infinity while the
    /// datastore has fewer than k keys).
    float threshold(std::size_t t) const;
    /// Cosine of target t and a raw vector (normalized here; 0 for a zero vector).
    float similarity(std::size_t t, std::span<const float> vector) const;
    /// Cosine of targets t and u (both already normalized: no copy).
    float targetSimilarity(std::size_t t, std::size_t u) const;

    /// The targets a key with this raw vector would reach, in target order. Error for a vector
    /// of the wrong size.
    std::vector<std::size_t> reachedBy(std::span<const float> vector) const;
    /// Records that a key with this vector was added to the datastore: the targets it reaches
    /// take it among their k nearest. Returns those targets (reachedBy before the update).
    std::vector<std::size_t> keyAdded(std::span<const float> vector);
    /// Searches the datastore again for these targets (after keys were removed, or added
    /// without keyAdded).
    void refresh(std::span<const std::size_t> targets);

private:
    std::vector<float> normalized(std::span<const float> vector) const;
    float dot(std::size_t t, std::span<const float> unit) const;

    const KnnDatastore* datastore_;
    std::size_t dimension_;
    std::size_t k_;
    std::size_t count_;
    std::vector<float> targets_;             // count_ x dimension_, unit rows
    std::vector<float> nearest_;             // count_ x k_, cosines best first
    std::vector<std::size_t> nearestCount_;  // valid entries of each row of nearest_
};

}  // namespace linkscope::retrieval
