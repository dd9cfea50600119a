#include "kb/string_pool.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

#include "util/error.h"

namespace linkscope::kb {
namespace {

std::size_t hashOf(std::string_view text) noexcept { return std::hash<std::string_view>{}(text); }

// Linear probing stays fast up to about 70 % occupancy; beyond that probe runs grow quickly.
constexpr std::size_t kMaxLoadPercent = 70;

}  // namespace

std::size_t StringPool::memoryBytes() const noexcept {
    return arena_.capacity() + offsets_.capacity() * sizeof(std::uint32_t) + slots_.capacity() * sizeof(Id);
}

void StringPool::reserve(std::size_t strings, std::size_t bytes) {
    arena_.reserve(bytes);
    offsets_.reserve(strings + 1);
    std::size_t capacity = std::max<std::size_t>(slots_.size(), 16);
    while (strings * 100 >= capacity * kMaxLoadPercent) capacity *= 2;
    if (capacity > slots_.size()) {
        // Rebuilding at the final size now saves the rehashes that growth would do later.
        slots_.assign(capacity, kEmptySlot);
        for (Id id = 0; id < size(); ++id) slots_[slotOf(view(id), hashOf(view(id)))] = id;
    }
}

void StringPool::shrinkToFit() {
    arena_.shrink_to_fit();
    offsets_.shrink_to_fit();
}

std::size_t StringPool::slotOf(std::string_view text, std::size_t hash) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        const Id id = slots_[slot];
        if (id == kEmptySlot) return slot;
        const std::size_t begin = offsets_[id];
        const std::size_t length = offsets_[id + 1] - begin;
        if (length == text.size() && (length == 0 || std::memcmp(arena_.data() + begin, text.data(), length) == 0))
            return slot;
    }
}

void StringPool::growTable() {
    const std::size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    slots_.assign(capacity, kEmptySlot);
    for (Id id = 0; id < size(); ++id) slots_[slotOf(view(id), hashOf(view(id)))] = id;
}

std::optional<StringPool::Id> StringPool::find(std::string_view text) const noexcept {
    if (slots_.empty()) return std::nullopt;
    const Id id = slots_[slotOf(text, hashOf(text))];
    if (id == kEmptySlot) return std::nullopt;
    return id;
}

StringPool::Id StringPool::intern(std::string_view text) {
    if ((size() + 1) * 100 > slots_.size() * kMaxLoadPercent) growTable();
    const std::size_t slot = slotOf(text, hashOf(text));
    if (slots_[slot] != kEmptySlot) return slots_[slot];

    constexpr std::size_t kMaxOffset = std::numeric_limits<std::uint32_t>::max();
    if (arena_.size() + text.size() > kMaxOffset)
        throw Error("string pool full: more than 4 GiB of distinct strings");
    if (size() + 1 >= kEmptySlot) throw Error("string pool full: more than 2^32 - 2 distinct strings");

    const auto id = static_cast<Id>(size());
    arena_.insert(arena_.end(), text.begin(), text.end());
    offsets_.push_back(static_cast<std::uint32_t>(arena_.size()));
    slots_[slot] = id;
    return id;
}

}  // namespace linkscope::kb
