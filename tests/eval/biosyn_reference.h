#pragma once
// BioSyn's own preprocessed NCBI Disease (../shared/data/biosyn-ncbi-disease/ncbi-disease.tar.gz),
// read in place: processed_<split>/<PMID>.concept rows "PMID||start|end||type||mention||ids" and
// the <split>_dictionary.txt files "ids||name". The gunzip and ustar reading are the few lines
// of tests/text/test_text_data.cpp, copied rather than shared (that suite's helpers are local
// to it and other folders' files are not to be edited).
#include <zlib.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace linkscope::test {

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

struct BioSynQuery {
    std::string type;
    std::string mention;  ///< processed: lower case, parts joined by '|'
    std::string ids;      ///< as written, e.g. "D001943|D010051", " D007945", "609536"
};

/// (PMID, "start|end") -> processed query of one split.
using BioSynQueries = std::map<std::pair<std::string, std::string>, BioSynQuery>;

inline BioSynQueries readBioSynQueries(const std::string& tar, const std::string& split) {
    BioSynQueries queries;
    const std::string folder = "processed_" + split + "/";
    forEachTarMember(tar, [&](const std::string& name, std::string_view data) {
        if (name.find(folder) == std::string::npos || !name.ends_with(".concept")) return;
        for (const auto& row : splitOn(data, "\n")) {
            if (row.empty()) continue;
            const auto fields = splitOn(row, "||");
            if (fields.size() == 5) queries[{fields[0], fields[1]}] = {fields[2], fields[3], fields[4]};
        }
    });
    return queries;
}

/// The lines of <split>_dictionary.txt as (ids, name), in file order.
inline std::vector<std::pair<std::string, std::string>> readBioSynDictionary(const std::string& tar, const std::string& split) {
    std::vector<std::pair<std::string, std::string>> lines;
    const std::string wanted = split + "_dictionary.txt";
    forEachTarMember(tar, [&](const std::string& name, std::string_view data) {
        if (!name.ends_with("/" + wanted) && name != wanted) return;
        for (const auto& row : splitOn(data, "\n")) {
            if (row.empty()) continue;
            const auto bars = row.find("||");
            if (bars == std::string::npos) continue;
            lines.emplace_back(row.substr(0, bars), row.substr(bars + 2));
        }
    });
    return lines;
}

}  // namespace linkscope::test
