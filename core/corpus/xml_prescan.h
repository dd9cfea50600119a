#pragma once
// A pass over XML text before pugixml parses it, for what pugixml does not check:
//  - numeric character references: pugixml accumulates their digits in 32 bits without a
//    check, so "&#4294967296;" wraps to NUL (which ends a C-string value: a title cut short)
//    and "&#x10000D800;" to a surrogate (invalid UTF-8), and it decodes characters that XML
//    does not allow ("&#0;", "&#xD800;", "&#xFFFE;"). Every "&#" outside CDATA sections,
//    comments and processing instructions is checked here, whatever its number of digits;
//  - the size of the tree pugixml will build, counted from the text, so that a file of many
//    tiny elements is refused before its tree is allocated.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace linkscope::xml {

struct Prescan {
    std::size_t elements = 0;    ///< start tags (and empty-element tags)
    std::size_t textRuns = 0;    ///< runs of character data that may become a text node
    std::size_t attributes = 0;  ///< '=' inside tags
    /// The first bad character reference: its byte offset and the message (without the file).
    std::optional<std::pair<std::size_t, std::string>> problem;

    /// An upper bound of the bytes pugixml allocates for the tree (64-bit build, default mode:
    /// 64 bytes a node, 40 an attribute) before its page overhead.
    std::size_t treeBytes() const noexcept { return (elements + textRuns + 1) * 64 + attributes * 40; }
};

/// Scans `text` (UTF-8 XML). Stops at the first bad character reference (Prescan::problem).
Prescan prescan(std::string_view text);

}  // namespace linkscope::xml
