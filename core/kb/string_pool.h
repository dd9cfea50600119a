#pragma once
// Interned strings for knowledge bases of UMLS size (millions of names): every distinct string
// is stored once, back to back in one arena, and named by a dense 32-bit id. Looking a string
// up goes through an open-addressing table of ids, so there is no heap object per string and
// no std::unordered_map<std::string, ...> whose nodes would cost ~60 bytes per name.
//
// Beside every slot of the table lies one tag byte: 0 for a free slot, else 7 bits of the
// string's hash (as SwissTable's control bytes). A probe reads the tags, which lie together, and
// only a slot whose tag matches costs the two cache misses of reading the string's offsets and
// text. Without the tags, every probe step read a random offset and, among same-length strings
// (every UMLS CUI is 8 characters), its text: the probe loop was the largest cost of loading an
// 8 M-name UMLS (benchmarks/string_pool_intern).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace linkscope::kb {

class StringPool {
public:
    using Id = std::uint32_t;

    StringPool() = default;

    /// Id of `text`, adding it when it is new. Ids are dense and given in order of first
    /// appearance (0, 1, 2, ...). Throws Error when the pool would exceed 4 GiB of text or
    /// 2^32 - 1 strings (32-bit offsets and ids keep the tables half the size of 64-bit ones).
    Id intern(std::string_view text);

    /// Id of `text` when it has been interned.
    std::optional<Id> find(std::string_view text) const noexcept;

    /// The string with this id. The view stays valid until the next intern() (the arena may
    /// move when it grows); a pool that is no longer added to never invalidates it.
    std::string_view view(Id id) const noexcept {
        return {arena_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]};
    }
    std::size_t length(Id id) const noexcept { return offsets_[id + 1] - offsets_[id]; }

    std::size_t size() const noexcept { return offsets_.size() - 1; }
    bool empty() const noexcept { return size() == 0; }
    /// Bytes of string text stored (without any separators).
    std::size_t textBytes() const noexcept { return arena_.size(); }
    /// Bytes held by the pool's containers (capacity, not size).
    std::size_t memoryBytes() const noexcept;

    /// Prepares room for about this many strings and bytes of text, to avoid regrowth.
    void reserve(std::size_t strings, std::size_t bytes);
    /// Gives back unused capacity once nothing more will be added: the text, and a table larger
    /// than growth would have made for the strings held (after a reserve above them).
    void shrinkToFit();

private:
    /// The slot holding `text`, or the free slot where it would go.
    std::size_t slotOf(std::string_view text, std::size_t hash) const noexcept;
    /// Rebuilds the table with `capacity` slots (a power of two) from the strings held.
    void rehash(std::size_t capacity);

    static constexpr std::uint8_t kFreeSlot = 0;

    std::vector<char> arena_;
    std::vector<std::uint32_t> offsets_{0};  // string i is arena_[offsets_[i], offsets_[i+1])
    std::vector<Id> slots_;                  // power-of-two sized; the id in each used slot
    std::vector<std::uint8_t> tags_;         // one per slot: kFreeSlot, or the hash's tag
};

}  // namespace linkscope::kb
