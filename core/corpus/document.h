#pragma once
// One abstract of a corpus: title, abstract, mentions and relations.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "corpus/mention.h"

namespace linkscope {

/// Byte range [begin, end) in a UTF-8 string.
struct ByteRange {
    std::size_t begin = 0;
    std::size_t end = 0;
    friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

/// Character (code point) range [start, end).
struct CharRange {
    std::size_t start = 0;
    std::size_t end = 0;
    friend bool operator==(const CharRange&, const CharRange&) = default;
};

class Document {
public:
    /// The PMID is the document's identity in a Corpus (its lookup key), hence fixed here.
    explicit Document(std::string pmid) : pmid_(std::move(pmid)) {}

    const std::string& pmid() const noexcept { return pmid_; }

    std::string title;
    std::string abstract;
    /// False for a title-only document (no "|a|" line); text() is then the title alone.
    bool hasAbstract = true;
    std::vector<Mention> mentions;
    std::vector<Relation> relations;
    /// Where the "|t|" line was read (empty file / line 0 for documents built in memory).
    std::string sourceFile;
    std::size_t sourceLine = 0;

    /// The text that offsets count in: title + " " + abstract (PubTator convention).
    std::string text() const;
    /// Character offset at which the abstract starts in text() (title length + 1).
    std::size_t abstractStart() const noexcept;
    /// Length of text() in characters.
    std::size_t characterCount() const noexcept;

    static CharRange characterRange(const Mention& mention) noexcept { return {mention.start, mention.end}; }
    /// Byte range of the mention in text(), or nullopt when its offsets lie outside the text
    /// or start > end. Walks the text once; use DocumentText for many look-ups.
    std::optional<ByteRange> byteRange(const Mention& mention) const noexcept;

private:
    std::string pmid_;
};

/// Same content: PMID, title, abstract and annotations; source locations are ignored, so a
/// document read back from a written file compares equal to the original.
bool sameContent(const Document& a, const Document& b) noexcept;

}  // namespace linkscope
