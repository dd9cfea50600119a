#include "project/referenced_corpora.h"

#include <iterator>
#include <map>
#include <optional>
#include <utility>

#include "corpus/corpus_input.h"

namespace linkscope {
namespace {

void moveDiagnostics(Corpus& corpus, std::vector<Diagnostic>& notes) {
    notes.insert(notes.end(), std::make_move_iterator(corpus.diagnostics.begin()),
                 std::make_move_iterator(corpus.diagnostics.end()));
    corpus.diagnostics.clear();
}

using GroupKey = std::pair<std::filesystem::path, CorpusFormat>;

}  // namespace

std::vector<SplitCorpus> readReferencedCorpora(std::span<const CorpusReference> references,
                                               std::vector<Diagnostic>& notes,
                                               const std::function<bool(const CorpusReference&)>& wanted,
                                               const std::function<void(const CorpusReference&)>& reading) {
    // The PMID lists over each file, across all references.
    std::map<GroupKey, std::vector<PmidListSplit>> groups;
    for (const auto& reference : references)
        if (!reference.pmidList.empty())
            groups[{reference.path, reference.format}].push_back({reference.split, reference.pmidList});

    std::map<GroupKey, std::vector<CorpusSplit>> partitioned;  // filled at a group's first wanted reference
    std::vector<SplitCorpus> result;
    for (const auto& reference : references) {
        if (wanted && !wanted(reference)) continue;
        CorpusReadOptions options;
        options.format = reference.format;
        if (reference.pmidList.empty()) {
            if (reading) reading(reference);
            Corpus corpus = readCorpus(reference.path, options);
            moveDiagnostics(corpus, notes);
            result.push_back({reference.split, std::move(corpus)});
            continue;
        }
        const GroupKey key{reference.path, reference.format};
        auto it = partitioned.find(key);
        if (it == partitioned.end()) {
            if (reading) reading(reference);
            SplitsFromPmidLists splits = readSplitsByPmidLists(reference.path, groups.at(key), options);
            notes.insert(notes.end(), std::make_move_iterator(splits.notes.begin()),
                         std::make_move_iterator(splits.notes.end()));
            it = partitioned.emplace(key, std::move(splits.splits)).first;
        }
        for (auto& split : it->second)
            if (split.name == reference.split) {
                result.push_back({reference.split, std::move(split.corpus)});
                break;
            }
    }
    return result;
}

}  // namespace linkscope
