#pragma once
// Helpers shared by the KB suites: checking that a loader fails with a ParseError at the right
// place, writing gzip fixtures, and a small normalizer standing in for the text layer's.
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>

#include "test_data.h"
#include "util/error.h"

namespace linkscope::test {

/// Runs `load` and checks that it throws a ParseError whose what() starts with "FILE:LINE:"
/// and contains `fragment`.
template <class Load>
void expectParseError(Load&& load, const std::filesystem::path& file, std::size_t line, std::string_view fragment) {
    try {
        load();
    } catch (const ParseError& e) {
        const std::string what = e.what();
        const std::string where = file.string() + ":" + std::to_string(line) + ":";
        QVERIFY2(what.starts_with(where), qPrintable(QString::fromStdString("expected \"" + where + "\" in: " + what)));
        QCOMPARE(e.line(), line);
        QVERIFY2(what.find(fragment) != std::string::npos,
                 qPrintable(QString::fromStdString("expected \"" + std::string(fragment) + "\" in: " + what)));
        return;
    }
    QFAIL("expected a ParseError");
}

inline void writeGzip(const std::filesystem::path& path, std::string_view content) {
    gzFile file = gzopen(path.string().c_str(), "wb");
    QVERIFY(file);
    QCOMPARE(gzwrite(file, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
    gzclose(file);
}

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
