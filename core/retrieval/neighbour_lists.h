#pragma once
// Each query's nearest datastore keys, kept up to date as keys come and go, so that ranking a
// query again after a curator's decision needs no search of the datastore (at MedMentions' size
// one search reads 208,000 keys, and a decision or its undo reaches hundreds of mentions, all
// ranked again on the GUI thread).
//
// A list holds a query's `depth` nearest keys (depth >= k, the interpolation's k), exactly as
// KnnDatastore::search() orders them (similarity, then key id):
// - a key added is merged in (KnnDatastore::asNeighbors gives its entry with the similarity
//   search() computes, so the merged list is what a new search gives);
// - a key removed is taken out: the rest are still the nearest of what remains, one fewer.
//   A list that lost keys can no longer take a key from below its last (one between the
//   last and the new key may be missing), so its capacity shrinks to what it holds;
// - only when fewer than k remain while the datastore holds more is the list stale: the
//   caller searches again (keep()). With depth = 2k, that takes k removals from one list.
// A list that holds fewer than its capacity holds every key of the datastore, and any new key
// enters it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "retrieval/knn_datastore.h"

namespace linkscope::retrieval {

class NeighbourLists {
public:
    /// `queries` lists, all stale; 0 < k <= depth (Error otherwise).
    NeighbourLists(std::size_t queries, std::size_t k, std::size_t depth);

    std::size_t size() const noexcept { return counts_.size(); }
    std::size_t k() const noexcept { return k_; }
    std::size_t depth() const noexcept { return depth_; }

    /// Whether query q must be searched again before its list says anything.
    bool stale(std::size_t q) const { return stale_.at(q) != 0; }
    /// The k nearest keys of a held list (fewer when the datastore holds fewer), best first:
    /// what the interpolation reads.
    std::span<const DatastoreNeighbor> nearest(std::size_t q) const;
    /// The k-th nearest key's similarity (-infinity while the datastore holds fewer than k
    /// keys); a stale list keeps the value it had.
    float kth(std::size_t q) const { return kth_.at(q); }
    /// A key whose similarity is below this cannot enter the list (-infinity: any key enters);
    /// a stale list answers its kth().
    float floor(std::size_t q) const;

    /// The list of a query from search(query, depth()): held from now on.
    void keep(std::size_t q, std::span<const DatastoreNeighbor> found);
    /// A key just added, as asNeighbors() gives it for query q: merged into a held list.
    /// Returns whether the query's k nearest changed (true for a stale list: it may have).
    bool merge(std::size_t q, const DatastoreNeighbor& entry);
    /// The k nearest query q would have with a key added (the key not merged), or nothing when
    /// they would not change; Error for a stale list.
    std::optional<std::vector<DatastoreNeighbor>> withKey(std::size_t q, const DatastoreNeighbor& entry) const;
    /// Keys just removed from the datastore: taken out of every held list. Returns the queries
    /// whose k nearest changed (in query order); those left with fewer than k while the
    /// datastore still holds more are stale from now on.
    std::vector<std::size_t> remove(std::span<const std::uint64_t> keys);

    std::size_t memoryBytes() const noexcept;

private:
    std::span<DatastoreNeighbor> row(std::size_t q) { return std::span(entries_).subspan(q * depth_, depth_); }
    std::span<const DatastoreNeighbor> row(std::size_t q) const {
        return std::span(entries_).subspan(q * depth_, depth_);
    }
    void update(std::size_t q);

    std::size_t k_;
    std::size_t depth_;
    std::vector<DatastoreNeighbor> entries_;  // query q's list at [q * depth_, q * depth_ + counts_[q])
    std::vector<std::uint32_t> counts_;
    std::vector<std::uint32_t> capacities_;  // <= depth_; below it after removals
    std::vector<std::uint8_t> stale_;
    std::vector<float> kth_;
};

}  // namespace linkscope::retrieval
