#pragma once
// Lists of PMIDs that name the documents of a split (MedMentions' corpus_pubtator_pmids_*.txt).
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope {

class LineReader;

struct PmidList {
    std::string name;  ///< the split's name ("trng", "dev", ...)
    std::string sourceFile;
    std::vector<std::string> pmids;  ///< in file order, each once
    std::vector<std::size_t> lines;  ///< 1-based source line of each PMID
};

/// Reads one numeric PMID per line; whitespace around it and blank lines are ignored. A line
/// that is not a PMID, a PMID listed twice, and a file without PMIDs are ParseErrors naming
/// file and line. `name` defaults to the file name without extensions.
/// Memory: proportional to the list (each PMID held with its line and a duplicate check),
/// about 100 bytes a PMID. Splitting a corpus by its lists does not use it: see
/// forEachListedPmid, which holds nothing per PMID.
PmidList readPmidList(const std::filesystem::path& path, std::string name = {});

/// Reads the list line by line and calls `take(pmid, reader)` for each PMID as it is read, so
/// that the caller checks it at once and can stop the reading at its line (reader.fail()). The
/// same rules as readPmidList for the lines; a PMID listed twice is for `take` to find. A
/// file without PMIDs is a ParseError (line 0).
/// Memory: one line (at most 64 KiB) and the reader's buffer, whatever the length of the list.
void forEachListedPmid(const std::filesystem::path& path,
                       const std::function<void(std::string_view pmid, const LineReader& reader)>& take);

}  // namespace linkscope
