#pragma once
// Internal to core/retrieval: a set of strings numbered 0..size-1 in insertion order, with fast
// lookup of a string_view. The vocabulary of a TF-IDF model lives here: one character pool and
// an open-addressing table of 32-bit ids, instead of a node-based map with a heap string per term
// (the n-gram lookups dominate the time to build an index and to vectorize a query).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::retrieval::detail {

/// 64-bit hash of a byte string (not cryptographic; used for tables and fingerprints of
/// in-memory data, never persisted).
std::uint64_t hashBytes(std::string_view bytes) noexcept;

class TermTable {
public:
    static constexpr std::uint32_t npos = 0xFFFFFFFFu;

    std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(offsets_.size() - 1); }
    /// The id of `term`, or npos.
    std::uint32_t find(std::string_view term) const noexcept;
    /// The id of `term`, added with the next id when absent. Throws Error when the pool would
    /// outgrow 32-bit offsets (4 GiB of distinct terms).
    std::uint32_t insert(std::string_view term) {
        // Inline fast path: a one- or two-byte term seen before (most character n-grams).
        if (term.size() - 1 < 2 && !shortIds_.empty())
            if (const std::uint32_t id = shortIds_[shortIndex(term)]; id != 0) return id - 1;
        return insertSlow(term);
    }
    std::string_view term(std::uint32_t id) const noexcept {
        return std::string_view(pool_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
    }
    void reserve(std::size_t terms);
    std::size_t memoryBytes() const noexcept;

private:
    // A slot keeps the first 8 bytes and the length of its term: most n-grams are at most 8
    // bytes long, so a lookup compares two integers and seldom touches the pool.
    struct Slot {
        std::uint64_t prefix = 0;
        std::uint32_t length = 0;
        std::uint32_t id = 0;  // id + 1; 0 marks an empty slot
    };
    struct Key {
        std::uint64_t prefix;
        std::uint64_t hash;
    };
    static Key keyOf(std::string_view term) noexcept;
    std::uint32_t insertSlow(std::string_view term);
    void grow();
    std::size_t slotOf(std::string_view term, const Key& key) const noexcept;

    // Terms of one or two bytes (most character n-grams of BioSyn's 1-2 setting) are also
    // found by direct indexing: [byte] or [256 + first + 256 * second], id + 1 or 0.
    static std::size_t shortIndex(std::string_view term) noexcept {
        const auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(term[i])); };
        return term.size() == 1 ? byte(0) : 256 + byte(0) + 256 * byte(1);
    }

    std::string pool_;
    std::vector<std::uint32_t> offsets_{0};  // term i is pool_[offsets_[i], offsets_[i + 1])
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> shortIds_;  // allocated with the first short term
};

}  // namespace linkscope::retrieval::detail
