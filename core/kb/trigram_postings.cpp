#include "kb/trigram_postings.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>

#include "util/error.h"

namespace linkscope::kb {
namespace {

constexpr std::size_t kCodes = std::size_t{1} << 24;  // every 3-byte sequence
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::uint32_t codeAt(std::string_view text, std::size_t at) noexcept {
    return (std::uint32_t{static_cast<unsigned char>(text[at])} << 16) |
           (std::uint32_t{static_cast<unsigned char>(text[at + 1])} << 8) |
           std::uint32_t{static_cast<unsigned char>(text[at + 2])};
}

std::size_t varintBytes(std::uint32_t value) noexcept {
    std::size_t bytes = 1;
    while (value >= 0x80) {
        value >>= 7;
        ++bytes;
    }
    return bytes;
}

// Calls visit(code) once for each distinct 3-gram of key `key`, deduplicated through `last`
// (the last key each code was seen in; keys are visited in ascending order).
template <typename Visit>
void forEachNewGram(std::string_view text, std::uint32_t key, std::vector<std::uint32_t>& last, Visit&& visit) {
    for (std::size_t at = 0; at + 3 <= text.size(); ++at) {
        const std::uint32_t code = codeAt(text, at);
        if (last[code] == key) continue;
        visit(code, last[code]);
        last[code] = key;
    }
}

}  // namespace

TrigramPostings::TrigramPostings(std::uint32_t count, const KeyFn& keyOf, const ProgressSink& progress) {
    // Two passes over the keys with one slot per possible code (2^24 slots of 16 bytes while building,
    // nothing kept): the first sizes each list, the second writes it.
    std::vector<std::uint32_t> last(kCodes, kNone);
    std::vector<std::uint32_t> keys(kCodes, 0);
    std::vector<std::uint64_t> bytes(kCodes, 0);
    for (std::uint32_t key = 0; key < count; ++key) {
        if ((key & 0xFFF) == 0) progress.checkCancelled();
        forEachNewGram(keyOf(key), key, last, [&](std::uint32_t code, std::uint32_t previous) {
            ++keys[code];
            bytes[code] += varintBytes(previous == kNone ? key : key - previous - 1);
        });
    }
    std::uint64_t total = 0;
    for (std::uint32_t code = 0; code < kCodes; ++code) {
        if (keys[code] == 0) continue;
        grams_.push_back(code);
        counts_.push_back(keys[code]);
        offsets_.push_back(total);
        total += bytes[code];
    }
    offsets_.push_back(total);
    data_.resize(total);
    // `bytes` now holds where each code's next gap goes.
    for (std::size_t g = 0; g < grams_.size(); ++g) bytes[grams_[g]] = offsets_[g];
    std::fill(last.begin(), last.end(), kNone);
    for (std::uint32_t key = 0; key < count; ++key) {
        if ((key & 0xFFF) == 0) progress.checkCancelled();
        forEachNewGram(keyOf(key), key, last, [&](std::uint32_t code, std::uint32_t previous) {
            std::uint32_t gap = previous == kNone ? key : key - previous - 1;
            std::uint64_t& at = bytes[code];
            while (gap >= 0x80) {
                data_[at++] = static_cast<std::uint8_t>(gap | 0x80);
                gap >>= 7;
            }
            data_[at++] = static_cast<std::uint8_t>(gap);
        });
    }
}

std::vector<std::uint32_t> TrigramPostings::keysOf(std::size_t gram) const {
    std::vector<std::uint32_t> keys;
    keys.reserve(counts_[gram]);
    std::uint64_t at = offsets_[gram];
    const std::uint64_t end = offsets_[gram + 1];
    std::uint32_t key = kNone;  // the first gap counts from -1
    while (at < end) {
        std::uint32_t gap = 0;
        for (unsigned shift = 0;; shift += 7) {
            const std::uint8_t byte = data_[at++];
            gap |= std::uint32_t{byte & 0x7Fu} << shift;
            if ((byte & 0x80) == 0) break;
        }
        key += gap + 1;
        keys.push_back(key);
    }
    return keys;
}

std::vector<std::uint32_t> TrigramPostings::containing(std::string_view text, const KeyFn& keyOf) const {
    if (text.size() < 3) throw Error("3-gram postings: \"" + std::string(text) + "\" is shorter than a 3-gram");
    // The text's distinct 3-grams present in the index, rarest first; one absent: no key.
    std::vector<std::size_t> found;
    for (std::size_t at = 0; at + 3 <= text.size(); ++at) {
        const std::uint32_t code = codeAt(text, at);
        const auto it = std::lower_bound(grams_.begin(), grams_.end(), code);
        if (it == grams_.end() || *it != code) return {};
        found.push_back(static_cast<std::size_t>(it - grams_.begin()));
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    std::sort(found.begin(), found.end(), [this](std::size_t a, std::size_t b) { return counts_[a] < counts_[b]; });

    std::vector<std::uint32_t> candidates = keysOf(found.front());
    if (found.size() > 1) {
        const std::vector<std::uint32_t> second = keysOf(found[1]);
        std::vector<std::uint32_t> both;
        std::set_intersection(candidates.begin(), candidates.end(), second.begin(), second.end(),
                              std::back_inserter(both));
        candidates = std::move(both);
    }
    // A text of exactly one 3-gram is in every key of its list; a longer one is checked.
    if (text.size() > 3)
        std::erase_if(candidates, [&](std::uint32_t key) { return keyOf(key).find(text) == std::string_view::npos; });
    return candidates;
}

std::size_t TrigramPostings::memoryBytes() const noexcept {
    return grams_.capacity() * sizeof(std::uint32_t) + counts_.capacity() * sizeof(std::uint32_t) +
           offsets_.capacity() * sizeof(std::uint64_t) + data_.capacity();
}

}  // namespace linkscope::kb
