#pragma once
// BioSyn's own preprocessed NCBI Disease (../shared/data/biosyn-ncbi-disease/ncbi-disease.tar.gz),
// read in place: processed_<split>/<PMID>.concept rows "PMID||start|end||type||mention||ids" and
// the <split>_dictionary.txt files "ids||name". The archive is read with the shared raw-data
// helpers (tests/common/raw_data.h), not through the engine.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "raw_data.h"

namespace linkscope::test {

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
inline std::vector<std::pair<std::string, std::string>> readBioSynDictionary(const std::string& tar,
                                                                             const std::string& split) {
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
