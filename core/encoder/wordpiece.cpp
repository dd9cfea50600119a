#include "encoder/wordpiece.h"

#include <algorithm>

namespace linkscope::encoder::detail {

void appendWordPieces(const Vocabulary& vocabulary, std::span<const TrackedChar> word, std::int32_t unknownId,
                      const std::string& unknownToken, std::vector<TokenPiece>& pieces) {
    if (word.empty()) return;
    // A piece covers the bytes of the characters it came from; after normalization those
    // ranges may overlap or be out of order, hence min/max rather than first/last.
    const auto span = [&](std::size_t first, std::size_t last) {
        std::size_t begin = word[first].begin, end = word[first].end;
        for (std::size_t k = first; k < last; ++k) {
            begin = std::min(begin, word[k].begin);
            end = std::max(end, word[k].end);
        }
        return std::pair{begin, end};
    };
    const auto unknown = [&] {
        const auto [begin, end] = span(0, word.size());
        pieces.push_back({unknownId, unknownToken, begin, end});
    };
    if (word.size() > kMaxCharsPerWord) {
        unknown();
        return;
    }
    // utf8 holds the word; offsets[i] is where character i starts in it.
    std::string utf8;
    std::vector<std::size_t> offsets;
    offsets.reserve(word.size() + 1);
    for (const auto& c : word) {
        offsets.push_back(utf8.size());
        appendUtf8(utf8, c.codePoint);
    }
    offsets.push_back(utf8.size());

    const std::size_t firstPiece = pieces.size();
    std::string candidate;
    for (std::size_t start = 0; start < word.size();) {
        std::size_t end = word.size();
        std::optional<std::int32_t> found;
        for (; end > start; --end) {
            candidate.assign(start > 0 ? "##" : "");
            candidate.append(utf8, offsets[start], offsets[end] - offsets[start]);
            if ((found = vocabulary.id(candidate))) break;
        }
        if (!found) {
            // The reference gives up on the whole word, not just the uncovered rest.
            pieces.resize(firstPiece);
            unknown();
            return;
        }
        const auto [begin, byteEnd] = span(start, end);
        pieces.push_back({*found, candidate, begin, byteEnd});
        start = end;
    }
}

}  // namespace linkscope::encoder::detail
