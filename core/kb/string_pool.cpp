#include "kb/string_pool.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

#include "util/error.h"

namespace linkscope::kb {
namespace {

std::size_t hashOf(std::string_view text) noexcept { return std::hash<std::string_view>{}(text); }

// 1 to 128 from the hash's top 7 bits, which the slot index (its low bits) does not use until
// the table has 2^57 slots; 0 is left for a free slot.
std::uint8_t tagOf(std::size_t hash) noexcept {
    return static_cast<std::uint8_t>((hash >> (std::numeric_limits<std::size_t>::digits - 7)) + 1);
}

// Linear probing stays fast up to about 70 % occupancy; beyond that probe runs grow quickly.
constexpr std::size_t kMaxLoadPercent = 70;
constexpr std::size_t kMinCapacity = 16;

// The slots growth reaches for this many strings (intern() doubles the table when one more would
// pass the load): what reserve() builds and shrinkToFit() comes back to, so that a pool's size
// does not depend on how it was filled.
std::size_t tableCapacityFor(std::size_t strings) noexcept {
    std::size_t capacity = kMinCapacity;
    while (strings * 100 > capacity * kMaxLoadPercent) capacity *= 2;
    return capacity;
}

}  // namespace

std::size_t StringPool::memoryBytes() const noexcept {
    return arena_.capacity() + offsets_.capacity() * sizeof(std::uint32_t) + slots_.capacity() * sizeof(Id) +
           tags_.capacity();
}

void StringPool::reserve(std::size_t strings, std::size_t bytes) {
    arena_.reserve(bytes);
    offsets_.reserve(strings + 1);
    // Rebuilding at the final size now saves the rehashes that growth would do later.
    const std::size_t capacity = tableCapacityFor(strings);
    if (capacity > slots_.size()) rehash(capacity);
}

void StringPool::shrinkToFit() {
    arena_.shrink_to_fit();
    offsets_.shrink_to_fit();
    // A reserve above the strings held (a loader's estimate) leaves no larger table than growth
    // would have made (`stats` reports the KB's memory).
    const std::size_t capacity = tableCapacityFor(size());
    if (capacity < slots_.size()) {
        rehash(capacity);
        slots_.shrink_to_fit();  // assign() kept the larger buffers
        tags_.shrink_to_fit();
    }
}

std::size_t StringPool::slotOf(std::string_view text, std::size_t hash) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    const std::uint8_t tag = tagOf(hash);
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        const std::uint8_t slotTag = tags_[slot];
        if (slotTag == kFreeSlot) return slot;
        if (slotTag != tag) continue;
        const Id id = slots_[slot];
        const std::size_t begin = offsets_[id];
        const std::size_t length = offsets_[id + 1] - begin;
        if (length == text.size() && (length == 0 || std::memcmp(arena_.data() + begin, text.data(), length) == 0))
            return slot;
    }
}

void StringPool::rehash(std::size_t capacity) {
    slots_.assign(capacity, 0);
    tags_.assign(capacity, kFreeSlot);
    const std::size_t mask = capacity - 1;
    for (Id id = 0; id < size(); ++id) {
        // The strings are distinct, so each goes to the first free slot of its run: no comparison.
        const std::size_t hash = hashOf(view(id));
        std::size_t slot = hash & mask;
        while (tags_[slot] != kFreeSlot) slot = (slot + 1) & mask;
        slots_[slot] = id;
        tags_[slot] = tagOf(hash);
    }
}

std::optional<StringPool::Id> StringPool::find(std::string_view text) const noexcept {
    if (slots_.empty()) return std::nullopt;
    const std::size_t slot = slotOf(text, hashOf(text));
    if (tags_[slot] == kFreeSlot) return std::nullopt;
    return slots_[slot];
}

StringPool::Id StringPool::intern(std::string_view text) {
    if ((size() + 1) * 100 > slots_.size() * kMaxLoadPercent) rehash(slots_.empty() ? kMinCapacity : slots_.size() * 2);
    const std::size_t hash = hashOf(text);
    const std::size_t slot = slotOf(text, hash);
    if (tags_[slot] != kFreeSlot) return slots_[slot];

    constexpr std::size_t kMaxOffset = std::numeric_limits<std::uint32_t>::max();
    if (arena_.size() + text.size() > kMaxOffset) throw Error("string pool full: more than 4 GiB of distinct strings");
    // Ids stay below 2^32 - 1, so that `id + 1` indexes offsets_ without overflow.
    if (size() + 1 >= std::numeric_limits<Id>::max())
        throw Error("string pool full: more than 2^32 - 2 distinct strings");

    const auto id = static_cast<Id>(size());
    arena_.insert(arena_.end(), text.begin(), text.end());
    offsets_.push_back(static_cast<std::uint32_t>(arena_.size()));
    slots_[slot] = id;
    tags_[slot] = tagOf(hash);
    return id;
}

}  // namespace linkscope::kb
