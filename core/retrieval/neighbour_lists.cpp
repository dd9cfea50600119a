#include "retrieval/neighbour_lists.h"

#include <algorithm>
#include <limits>
#include <string>

#include "util/error.h"

namespace linkscope::retrieval {
namespace {
constexpr float kNone = -std::numeric_limits<float>::infinity();
}

NeighbourLists::NeighbourLists(std::size_t queries, std::size_t k, std::size_t depth)
    : k_(k),
      depth_(depth),
      entries_(queries * depth),
      counts_(queries, 0),
      capacities_(queries, 0),
      stale_(queries, 1),
      kth_(queries, kNone) {
    if (k == 0 || depth < k)
        throw Error("neighbour lists: k must be positive and at most the depth (k " + std::to_string(k) + ", depth " +
                    std::to_string(depth) + ")");
}

std::span<const DatastoreNeighbor> NeighbourLists::nearest(std::size_t q) const {
    if (stale(q)) throw Error("neighbour lists: query " + std::to_string(q) + " must be searched again");
    return row(q).first(std::min<std::size_t>(counts_[q], k_));
}

float NeighbourLists::floor(std::size_t q) const {
    if (stale(q)) return kth_[q];
    if (counts_[q] < capacities_[q]) return kNone;  // it holds every key: any key enters
    return capacities_[q] == 0 ? kNone : row(q)[capacities_[q] - 1].similarity;
}

void NeighbourLists::update(std::size_t q) { kth_[q] = counts_[q] < k_ ? kNone : row(q)[k_ - 1].similarity; }

void NeighbourLists::keep(std::size_t q, std::span<const DatastoreNeighbor> found) {
    const std::size_t count = std::min(found.size(), depth_);
    std::copy_n(found.begin(), count, row(q).begin());
    counts_.at(q) = static_cast<std::uint32_t>(count);
    capacities_[q] = static_cast<std::uint32_t>(depth_);
    stale_[q] = 0;
    update(q);
}

bool NeighbourLists::merge(std::size_t q, const DatastoreNeighbor& entry) {
    if (stale(q)) return true;
    std::size_t count = counts_[q];
    const auto place = mergeNeighbor(row(q).first(capacities_[q]), count, entry);
    if (!place) return false;
    counts_[q] = static_cast<std::uint32_t>(count);
    update(q);
    return *place < k_;
}

std::optional<std::vector<DatastoreNeighbor>> NeighbourLists::withKey(std::size_t q,
                                                                      const DatastoreNeighbor& entry) const {
    if (stale(q)) throw Error("neighbour lists: query " + std::to_string(q) + " must be searched again");
    // Only the first k matter: merged into a copy of them, with room for one more when the list
    // can take it there (it holds fewer than k and every key).
    const std::size_t held = counts_[q];
    const std::size_t room = std::min<std::size_t>(k_, held < capacities_[q] ? held + 1 : held);
    std::vector<DatastoreNeighbor> first(row(q).begin(),
                                         row(q).begin() + static_cast<std::ptrdiff_t>(std::min(held, k_)));
    first.resize(room);
    std::size_t count = std::min(held, k_);
    if (!mergeNeighbor(first, count, entry)) return std::nullopt;
    first.resize(count);
    return first;
}

std::vector<std::size_t> NeighbourLists::remove(std::span<const std::uint64_t> keys) {
    std::vector<std::size_t> changed;
    if (keys.empty()) return changed;
    for (std::size_t q = 0; q < counts_.size(); ++q) {
        if (stale_[q]) continue;
        const auto list = row(q);
        const std::size_t held = counts_[q];
        std::size_t kept = 0;
        bool nearestChanged = false;
        for (std::size_t i = 0; i < held; ++i) {
            if (std::find(keys.begin(), keys.end(), list[i].key) != keys.end()) {
                nearestChanged = nearestChanged || i < k_;
                continue;
            }
            list[kept++] = list[i];
        }
        if (kept == held) continue;
        const bool heldEveryKey = held < capacities_[q];
        counts_[q] = static_cast<std::uint32_t>(kept);
        if (!heldEveryKey) capacities_[q] = static_cast<std::uint32_t>(kept);
        if (!heldEveryKey && kept < k_)
            stale_[q] = 1;  // its k-th is a key it no longer knows
        else
            update(q);
        if (nearestChanged || stale_[q]) changed.push_back(q);
    }
    return changed;
}

std::size_t NeighbourLists::memoryBytes() const noexcept {
    return entries_.capacity() * sizeof(DatastoreNeighbor) +
           (counts_.capacity() + capacities_.capacity()) * sizeof(std::uint32_t) + stale_.capacity() +
           kth_.capacity() * sizeof(float);
}

}  // namespace linkscope::retrieval
