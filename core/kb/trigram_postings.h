#pragma once
// Which of many keys contain a given text, without reading every key: for each 3-byte sequence
// (3-gram) that occurs in the keys, the keys that hold it, in ascending order. A text of three
// bytes or more can only occur in keys that hold all of its 3-grams, so the lists of its two
// rarest 3-grams are intersected and only those keys are checked with a plain find.
//
// It is the entity search's substring class at UMLS size: a scan of every normalized name takes
// longer per query than the 50 ms a GUI search box has (benchmarks/kb_search --umls measures
// both). Lists are stored as LEB128 varints of the gaps between key numbers, so
// that frequent 3-grams (whose gaps are small) cost about a byte a key.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "util/progress.h"

namespace linkscope::kb {

class TrigramPostings {
public:
    using KeyFn = std::function<std::string_view(std::uint32_t key)>;

    TrigramPostings() = default;
    /// Indexes keys 0 .. count-1 (keyOf(i) is key i; bytes, any content). Checks for
    /// cancellation every 4,096 keys (Cancelled).
    TrigramPostings(std::uint32_t count, const KeyFn& keyOf, const ProgressSink& progress = {});

    /// The keys (ascending) in which `text` occurs; `keyOf` must give the keys indexed. Throws
    /// Error for a text shorter than three bytes (its 3-grams cannot say).
    std::vector<std::uint32_t> containing(std::string_view text, const KeyFn& keyOf) const;

    /// Distinct 3-grams indexed.
    std::size_t gramCount() const noexcept { return grams_.size(); }
    std::size_t memoryBytes() const noexcept;

private:
    /// The keys that hold the gram at index `gram` of grams_, decoded.
    std::vector<std::uint32_t> keysOf(std::size_t gram) const;

    std::vector<std::uint32_t> grams_;    // the 24-bit codes present, ascending
    std::vector<std::uint32_t> counts_;   // keys per gram
    std::vector<std::uint64_t> offsets_;  // grams_.size() + 1 byte offsets into data_
    std::vector<std::uint8_t> data_;      // per gram: LEB128 gaps between its keys (the first from -1)
};

}  // namespace linkscope::kb
