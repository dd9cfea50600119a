#include "corpus/pmid_list.h"

#include <algorithm>
#include <unordered_map>

#include "corpus/pubtator_lines.h"
#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope {

void forEachListedPmid(const std::filesystem::path& path,
                       const std::function<void(std::string_view pmid, const LineReader& reader)>& take) {
    LineReaderOptions options;
    options.maxLineBytes = 1 << 16;  // a PMID line is a few bytes; anything long is not a list
    LineReader reader(path, options);
    std::string line;
    bool any = false;
    while (reader.next(line)) {
        const auto pmid = pubtator::trimmed(line);
        if (pmid.empty()) continue;
        if (!std::all_of(pmid.begin(), pmid.end(), [](char c) { return c >= '0' && c <= '9'; }))
            reader.fail("not a PMID: " + pubtator::quoteForMessage(line) + " (expected one numeric PMID per line)");
        take(pmid, reader);
        any = true;
    }
    if (!any) throw ParseError(reader.fileName(), 0, "no PMIDs (expected one numeric PMID per line)");
}

PmidList readPmidList(const std::filesystem::path& path, std::string name) {
    PmidList list;
    list.sourceFile = path.string();
    if (name.empty()) {
        auto file = path.filename();
        if (file.extension() == ".gz") file = file.stem();
        name = file.stem().string();
    }
    list.name = std::move(name);
    std::unordered_map<std::string, std::size_t> firstLine;
    forEachListedPmid(path, [&](std::string_view pmid, const LineReader& reader) {
        const auto [it, inserted] = firstLine.try_emplace(std::string(pmid), reader.lineNumber());
        if (!inserted)
            reader.fail("PMID " + it->first + " listed twice (first at line " + std::to_string(it->second) + ")");
        list.pmids.push_back(it->first);
        list.lines.push_back(reader.lineNumber());
    });
    return list;
}

}  // namespace linkscope
