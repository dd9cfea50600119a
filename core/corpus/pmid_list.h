#pragma once
// Lists of PMIDs that name the documents of a split (MedMentions' corpus_pubtator_pmids_*.txt).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace linkscope {

struct PmidList {
    std::string name;  ///< the split's name ("trng", "dev", ...)
    std::string sourceFile;
    std::vector<std::string> pmids;  ///< in file order, each once
    std::vector<std::size_t> lines;  ///< 1-based source line of each PMID
};

/// Reads one numeric PMID per line; whitespace around it and blank lines are ignored. A line
/// that is not a PMID, a PMID listed twice, and a file without PMIDs are ParseErrors naming
/// file and line. `name` defaults to the file name without extensions.
PmidList readPmidList(const std::filesystem::path& path, std::string name = {});

}  // namespace linkscope
