#include "corpus/corpus_split.h"

#include <algorithm>
#include <map>

namespace linkscope {
namespace {

const Corpus* findSplit(const std::vector<CorpusSplit>& splits, std::string_view name) noexcept {
    const auto it = std::find_if(splits.begin(), splits.end(), [name](const CorpusSplit& s) { return s.name == name; });
    return it == splits.end() ? nullptr : &it->corpus;
}

// Splits of every PMID named more than once, in order of first appearance.
class OverlapCollector {
public:
    void note(const std::string& pmid, const std::string& split) {
        auto [it, inserted] = splitsOf_.try_emplace(pmid);
        if (inserted) order_.push_back(pmid);
        it->second.push_back(split);
    }
    std::vector<SplitOverlap> overlaps() const {
        std::vector<SplitOverlap> result;
        for (const auto& pmid : order_)
            if (const auto& splits = splitsOf_.at(pmid); splits.size() > 1) result.push_back({pmid, splits});
        return result;
    }

private:
    std::map<std::string, std::vector<std::string>, std::less<>> splitsOf_;
    std::vector<std::string> order_;
};

}  // namespace

const Corpus* SplitCorpora::find(std::string_view splitName) const noexcept { return findSplit(splits, splitName); }
const Corpus* CorpusPartition::find(std::string_view splitName) const noexcept { return findSplit(splits, splitName); }

SplitCorpora readSplitFiles(std::span<const SplitFile> files, const PubTatorOptions& options) {
    SplitCorpora result;
    OverlapCollector overlaps;
    for (const auto& file : files) {
        PubTatorOptions splitOptions = options;
        splitOptions.name = file.name;
        auto corpus = readPubTator(file.path, splitOptions);
        for (const auto& document : corpus.documents()) overlaps.note(document.pmid(), file.name);
        result.splits.push_back({file.name, std::move(corpus)});
    }
    result.overlaps = overlaps.overlaps();
    return result;
}

CorpusPartition partitionByPmidLists(const Corpus& corpus, std::span<const PmidList> lists) {
    CorpusPartition result;
    OverlapCollector overlaps;
    // The first list that names a PMID owns its document.
    std::map<std::string_view, std::size_t, std::less<>> owner;
    for (std::size_t i = 0; i < lists.size(); ++i) {
        const auto& list = lists[i];
        Corpus split(list.name);
        split.sourceFiles = corpus.sourceFiles;
        split.sourceFiles.push_back(list.sourceFile);
        result.splits.push_back({list.name, std::move(split)});
        for (std::size_t k = 0; k < list.pmids.size(); ++k) {
            const auto& pmid = list.pmids[k];
            overlaps.note(pmid, list.name);
            owner.try_emplace(pmid, i);
            if (!corpus.contains(pmid))
                result.absent.push_back({list.name, pmid, list.sourceFile, k < list.lines.size() ? list.lines[k] : 0});
        }
    }
    for (const auto& document : corpus.documents()) {
        const auto it = owner.find(std::string_view(document.pmid()));
        if (it == owner.end()) {
            result.unlisted.push_back(document.pmid());
            continue;
        }
        result.splits[it->second].corpus.add(document);
    }
    result.overlaps = overlaps.overlaps();
    return result;
}

}  // namespace linkscope
