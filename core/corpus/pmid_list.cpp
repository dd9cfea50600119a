#include "corpus/pmid_list.h"

#include <algorithm>
#include <unordered_map>

#include "corpus/pubtator_lines.h"
#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope {

PmidList readPmidList(const std::filesystem::path& path, std::string name) {
    LineReaderOptions options;
    options.maxLineBytes = 1 << 16;  // a PMID line is a few bytes; anything long is not a list
    LineReader reader(path, options);
    PmidList list;
    list.sourceFile = reader.fileName();
    if (name.empty()) {
        auto file = path.filename();
        if (file.extension() == ".gz") file = file.stem();
        name = file.stem().string();
    }
    list.name = std::move(name);
    std::unordered_map<std::string, std::size_t> firstLine;
    std::string line;
    while (reader.next(line)) {
        const auto pmid = pubtator::trimmed(line);
        if (pmid.empty()) continue;
        if (!std::all_of(pmid.begin(), pmid.end(), [](char c) { return c >= '0' && c <= '9'; }))
            reader.fail("not a PMID: " + pubtator::quoteForMessage(line) + " (expected one numeric PMID per line)");
        const auto [it, inserted] = firstLine.try_emplace(std::string(pmid), reader.lineNumber());
        if (!inserted)
            reader.fail("PMID " + it->first + " listed twice (first at line " + std::to_string(it->second) + ")");
        list.pmids.push_back(it->first);
        list.lines.push_back(reader.lineNumber());
    }
    if (list.pmids.empty()) throw ParseError(list.sourceFile, 0, "no PMIDs (expected one numeric PMID per line)");
    return list;
}

}  // namespace linkscope
