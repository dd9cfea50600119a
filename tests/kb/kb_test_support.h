#pragma once
// Helpers shared by the KB suites: a KB's string ranges as vectors for QCOMPARE, and a small
// normalizer standing in for the text layer's. (Fixture folders, gzip fixtures and the
// ParseError check are in tests/common: fixtures.h, gzip_fixture.h.)
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "kb/knowledge_base.h"

namespace linkscope::test {

using Strings = std::vector<std::string>;

/// The strings of a KB range (names, synonyms, alternative ids), in order.
inline Strings toStrings(const kb::StringRange& range) { return {range.begin(), range.end()}; }

/// ASCII lower-casing, ASCII punctuation to spaces, runs of spaces collapsed, ends trimmed:
/// a stand-in for BioSyn's normalization (the real one lives in the text layer).
inline std::string simpleNormalize(std::string_view text) {
    std::string out;
    bool pendingSpace = false;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x80 && (std::ispunct(u) || std::isspace(u))) {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) out += ' ';
        pendingSpace = false;
        out += u < 0x80 ? static_cast<char>(std::tolower(u)) : c;
    }
    return out;
}

}  // namespace linkscope::test
