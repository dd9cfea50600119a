#include "retrieval/term_table.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"

namespace linkscope::retrieval::detail {
namespace {

constexpr std::uint64_t kMultiplier = 0x9FB21C651E98DF25ull;

std::uint64_t finalize(std::uint64_t x) noexcept {  // SplitMix64's finalizer
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

std::uint64_t hashBytes(std::string_view bytes) noexcept {
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(bytes.size()) * kMultiplier);
    std::size_t at = 0;
    for (; at + 8 <= bytes.size(); at += 8) {
        std::uint64_t word;
        std::memcpy(&word, bytes.data() + at, 8);
        h = (h ^ word) * kMultiplier;
        h ^= h >> 29;
    }
    if (at < bytes.size()) {
        std::uint64_t word = 0;
        std::memcpy(&word, bytes.data() + at, bytes.size() - at);
        h = (h ^ word) * kMultiplier;
    }
    return finalize(h);
}

TermTable::Key TermTable::keyOf(std::string_view term) noexcept {
    // Fixed-size copies: each case compiles to one or two loads (a variable-length memcpy
    // would be a call).
    std::uint64_t prefix = 0;
    const char* bytes = term.data();
    switch (std::min<std::size_t>(term.size(), 8)) {
        case 0:
            break;
        case 1:
            std::memcpy(&prefix, bytes, 1);
            break;
        case 2:
            std::memcpy(&prefix, bytes, 2);
            break;
        case 3:
            std::memcpy(&prefix, bytes, 3);
            break;
        case 4:
            std::memcpy(&prefix, bytes, 4);
            break;
        case 5:
            std::memcpy(&prefix, bytes, 5);
            break;
        case 6:
            std::memcpy(&prefix, bytes, 6);
            break;
        case 7:
            std::memcpy(&prefix, bytes, 7);
            break;
        default:
            std::memcpy(&prefix, bytes, 8);
            break;
    }
    // Short terms are wholly in the prefix: one multiplication hashes them.
    const std::uint64_t hash = term.size() <= 8 ? finalize(prefix * kMultiplier ^ term.size()) : hashBytes(term);
    return {prefix, hash};
}

std::size_t TermTable::slotOf(std::string_view term, const Key& key) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = static_cast<std::size_t>(key.hash) & mask;; at = (at + 1) & mask) {
        const Slot& slot = slots_[at];
        if (slot.id == 0) return at;
        if (slot.prefix == key.prefix && slot.length == term.size() &&
            (term.size() <= 8 || this->term(slot.id - 1).substr(8) == term.substr(8)))
            return at;
    }
}

std::uint32_t TermTable::find(std::string_view term) const noexcept {
    if (term.size() - 1 < 2) {  // one or two bytes
        if (shortIds_.empty()) return npos;
        const std::uint32_t id = shortIds_[shortIndex(term)];
        return id == 0 ? npos : id - 1;
    }
    if (slots_.empty()) return npos;
    const std::uint32_t id = slots_[slotOf(term, keyOf(term))].id;
    return id == 0 ? npos : id - 1;
}

std::uint32_t TermTable::insertSlow(std::string_view term) {
    std::uint32_t* shortId = nullptr;
    if (term.size() - 1 < 2) {
        if (shortIds_.empty()) shortIds_.assign(256 + 256 * 256, 0);
        shortId = &shortIds_[shortIndex(term)];
        if (*shortId != 0) return *shortId - 1;
    }
    // Keep the load factor at or below 1/2: probes stay short.
    if ((static_cast<std::size_t>(size()) + 1) * 2 > slots_.size()) grow();
    const Key key = keyOf(term);
    Slot& slot = slots_[slotOf(term, key)];
    if (slot.id != 0) return slot.id - 1;
    if (pool_.size() + term.size() >= npos || size() + 1 >= npos)
        throw Error("TF-IDF vocabulary too large (more than 4 GiB of terms)");
    const std::uint32_t id = size();
    pool_.append(term);
    offsets_.push_back(static_cast<std::uint32_t>(pool_.size()));
    slot = {key.prefix, static_cast<std::uint32_t>(term.size()), id + 1};
    if (shortId) *shortId = id + 1;
    return id;
}

void TermTable::reserve(std::size_t terms) {
    offsets_.reserve(terms + 1);
    while (slots_.size() < terms * 2) grow();
}

void TermTable::grow() {
    const std::size_t capacity = slots_.empty() ? 64 : slots_.size() * 2;
    slots_.assign(capacity, Slot{});
    const std::size_t mask = capacity - 1;
    for (std::uint32_t id = 0; id < size(); ++id) {
        const Key key = keyOf(term(id));
        std::size_t at = static_cast<std::size_t>(key.hash) & mask;
        while (slots_[at].id != 0) at = (at + 1) & mask;
        slots_[at] = {key.prefix, static_cast<std::uint32_t>(term(id).size()), id + 1};
    }
}

std::size_t TermTable::memoryBytes() const noexcept {
    return pool_.capacity() + offsets_.capacity() * sizeof(std::uint32_t) + slots_.capacity() * sizeof(Slot) +
           shortIds_.capacity() * sizeof(std::uint32_t);
}

}  // namespace linkscope::retrieval::detail
