#include "corpus/document.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "util/utf8.h"

namespace linkscope {
namespace {
bool startsCharacter(char byte) noexcept { return (static_cast<unsigned char>(byte) & 0xC0) != 0x80; }
}  // namespace

std::string Document::text() const {
    if (!hasAbstract) return title;
    std::string out;
    out.reserve(title.size() + 1 + abstract.size());
    out.append(title).append(1, ' ').append(abstract);
    return out;
}

std::size_t Document::abstractStart() const noexcept { return utf8::length(title) + 1; }

std::size_t Document::characterCount() const noexcept {
    return hasAbstract ? abstractStart() + utf8::length(abstract) : utf8::length(title);
}

std::optional<ByteRange> Document::byteRange(const Mention& mention) const noexcept {
    if (mention.start > mention.end) return std::nullopt;
    // Walk title, separator and abstract in place rather than building text().
    const std::array<std::string_view, 3> pieces{title, hasAbstract ? std::string_view(" ") : std::string_view(),
                                                 hasAbstract ? std::string_view(abstract) : std::string_view()};
    std::optional<std::size_t> begin;
    std::size_t characters = 0;
    std::size_t base = 0;
    for (const auto piece : pieces) {
        for (std::size_t i = 0; i < piece.size(); ++i) {
            if (!startsCharacter(piece[i])) continue;
            if (characters == mention.start) begin = base + i;
            if (characters == mention.end) return ByteRange{*begin, base + i};
            ++characters;
        }
        base += piece.size();
    }
    if (characters == mention.start) begin = base;
    if (characters == mention.end) return ByteRange{*begin, base};
    return std::nullopt;
}

bool sameContent(const Document& a, const Document& b) noexcept {
    return a.pmid() == b.pmid() && a.title == b.title && a.abstract == b.abstract && a.hasAbstract == b.hasAbstract &&
           std::equal(a.mentions.begin(), a.mentions.end(), b.mentions.begin(), b.mentions.end(),
                      [](const Mention& x, const Mention& y) { return sameContent(x, y); }) &&
           std::equal(a.relations.begin(), a.relations.end(), b.relations.begin(), b.relations.end(),
                      [](const Relation& x, const Relation& y) { return sameContent(x, y); });
}

}  // namespace linkscope
