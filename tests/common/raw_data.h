#pragma once
// Reading the shared data's raw files without the engine's readers, for "data" suites that
// cross-check the engine against an independent count: whole .gz files, members of a ustar
// archive (BioSyn's ncbi-disease.tar.gz) and plain field splitting.
// A suite that includes this links ZLIB::ZLIB (LIBS in linkscope_add_test).
#include <zlib.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::test {

/// `s` cut at every `separator`; an empty field stays (n separators give n + 1 fields).
inline std::vector<std::string> splitOn(std::string_view s, std::string_view separator) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const auto at = s.find(separator, start);
        fields.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return fields;
        start = at + separator.size();
    }
}

/// The uncompressed content of a .gz file ("" when it cannot be opened).
inline std::string gunzip(const std::filesystem::path& path) {
    std::string content;
    gzFile file = gzopen(path.string().c_str(), "rb");
    if (!file) return content;
    char buffer[1 << 16];
    int got = 0;
    while ((got = gzread(file, buffer, sizeof buffer)) > 0) content.append(buffer, static_cast<std::size_t>(got));
    gzclose(file);
    return content;
}

/// Calls f(name, data) for every member of a ustar archive (512-byte headers, octal sizes,
/// data padded to 512 bytes).
template <class F>
void forEachTarMember(const std::string& tar, F&& f) {
    std::size_t at = 0;
    while (at + 512 <= tar.size()) {
        const std::string_view header(tar.data() + at, 512);
        if (header[0] == '\0') break;
        const std::string name(header.substr(0, header.find('\0') < 100 ? header.find('\0') : 100));
        const std::size_t size = std::stoul(std::string(header.substr(124, 12)), nullptr, 8);
        f(name, std::string_view(tar.data() + at + 512, size));
        at += 512 + (size + 511) / 512 * 512;
    }
}

}  // namespace linkscope::test
