#include "corpus/corpus_input.h"

#include <map>
#include <set>

#include "corpus/bioc_reader.h"
#include "corpus/brat_reader.h"
#include "corpus/duplicate_documents.h"
#include "corpus/pmid_list.h"
#include "corpus/pubtator_reader.h"
#include "corpus/split_name.h"

namespace linkscope {
namespace {

CorpusFormat formatOf(const std::filesystem::path& path, const CorpusReadOptions& options) {
    return options.format ? *options.format : detectCorpusFormat(path);
}

void refuseLenient(const std::filesystem::path& path, CorpusFormat format, const CorpusReadOptions& options) {
    if (options.lenient && format != CorpusFormat::PubTator)
        throw Error(path.string() +
                    ": lenient reading (offset problems as diagnostics) is for PubTator files only; this is " +
                    std::string(corpusFormatName(format)));
}

// Appends `from` to `into` as readPubTator does for a second file (duplicate_documents.h).
void merge(Corpus& into, Corpus&& from) {
    for (auto& name : from.sourceFiles) into.sourceFiles.push_back(std::move(name));
    for (auto& diagnostic : from.diagnostics) into.diagnostics.push_back(std::move(diagnostic));
    for (auto& duplicate : from.duplicates) into.duplicates.push_back(std::move(duplicate));
    for (auto& document : from.documents()) addKeepingFirstCopy(into, std::move(document));
}

std::string examples(const std::vector<std::string>& pmids) {
    constexpr std::size_t kShown = 5;
    std::string text;
    for (std::size_t i = 0; i < pmids.size() && i < kShown; ++i) text += (i ? ", " : "") + pmids[i];
    if (pmids.size() > kShown) text += ", ...";
    return text;
}

}  // namespace

Corpus readCorpus(const std::filesystem::path& path, const CorpusReadOptions& options) {
    const CorpusFormat format = formatOf(path, options);
    refuseLenient(path, format, options);
    Corpus corpus;
    switch (format) {
        case CorpusFormat::PubTator: {
            PubTatorOptions pubtator;
            pubtator.lenient = options.lenient;
            pubtator.name = options.name;
            return readPubTator(path, pubtator);
        }
        case CorpusFormat::BioC:
            corpus = readBioC(path);
            break;
        case CorpusFormat::Brat:
            corpus = readBrat(path);
            break;
    }
    if (!options.name.empty()) corpus.name = options.name;
    return corpus;
}

Corpus readCorpus(std::span<const std::filesystem::path> paths, const CorpusReadOptions& options) {
    if (paths.empty()) throw Error("no corpus given");
    // Only PubTator files: the PubTator reader's own several-file reading (same messages and layout).
    bool allPubTator = true;
    std::vector<CorpusFormat> formats;
    for (const auto& path : paths) {
        formats.push_back(formatOf(path, options));
        allPubTator = allPubTator && formats.back() == CorpusFormat::PubTator;
    }
    if (allPubTator) {
        PubTatorOptions pubtator;
        pubtator.lenient = options.lenient;
        pubtator.name = options.name;
        return readPubTator(paths, pubtator);
    }
    Corpus corpus;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        CorpusReadOptions one = options;
        one.format = formats[i];
        Corpus read = readCorpus(paths[i], one);
        if (options.name.empty()) corpus.name += (i == 0 ? "" : "+") + read.name;
        merge(corpus, std::move(read));
    }
    if (!options.name.empty()) corpus.name = options.name;
    return corpus;
}

SplitsFromPmidLists splitByPmidLists(const Corpus& corpus, const std::string& corpusFile,
                                     std::span<const PmidListSplit> lists) {
    if (lists.empty()) throw Error(corpusFile + ": no PMID lists to split the corpus by");
    std::vector<PmidList> read;
    std::set<std::string, std::less<>> names;
    for (const auto& list : lists) {
        if (const auto problem = splitNameProblem(list.split)) throw ParseError(list.pmidList.string(), 0, *problem);
        if (!names.insert(list.split).second)
            throw ParseError(list.pmidList.string(), 0, "a second PMID list for the split \"" + list.split + "\"");
        read.push_back(readPmidList(list.pmidList, list.split));
    }
    // A PMID in two lists: named at its line in the later list, with the earlier one.
    std::map<std::string, std::pair<std::size_t, std::size_t>, std::less<>> firstSeen;  // pmid -> (list, index)
    for (std::size_t i = 0; i < read.size(); ++i)
        for (std::size_t k = 0; k < read[i].pmids.size(); ++k) {
            const auto [it, inserted] = firstSeen.try_emplace(read[i].pmids[k], i, k);
            if (!inserted) {
                const auto& [list, index] = it->second;
                throw ParseError(read[i].sourceFile, read[i].lines[k],
                                 "PMID " + read[i].pmids[k] + " is also in the " + read[list].name + " list (" +
                                     read[list].sourceFile + ":" + std::to_string(read[list].lines[index]) +
                                     "): a document cannot be in two splits");
            }
        }
    CorpusPartition partition = partitionByPmidLists(corpus, read);
    if (!partition.absent.empty()) {
        const auto& first = partition.absent.front();
        throw ParseError(first.file, first.line,
                         "PMID " + first.pmid + " of the " + first.list + " list is not in the corpus " + corpusFile +
                             (partition.absent.size() > 1
                                  ? " (" + std::to_string(partition.absent.size()) + " listed PMIDs are missing in all)"
                                  : std::string()));
    }
    SplitsFromPmidLists result;
    result.notes = corpus.diagnostics;
    if (!partition.unlisted.empty())
        result.notes.push_back({corpusFile, 0,
                                std::to_string(partition.unlisted.size()) + " of " + std::to_string(corpus.size()) +
                                    " documents are in no PMID list and in no split: " + examples(partition.unlisted)});
    result.splits = std::move(partition.splits);
    return result;
}

SplitsFromPmidLists readSplitsByPmidLists(const std::filesystem::path& corpus, std::span<const PmidListSplit> lists,
                                          const CorpusReadOptions& options) {
    return splitByPmidLists(readCorpus(corpus, options), corpus.string(), lists);
}

PmidListSplit parsePmidListSplit(const std::string& argument) {
    const auto equals = argument.find('=');
    if (equals == std::string::npos)
        throw Error("--split-pmids \"" + argument +
                    "\": expected NAME=FILE (e.g. train=corpus_pubtator_pmids_trng.txt)");
    PmidListSplit split{argument.substr(0, equals), argument.substr(equals + 1)};
    if (const auto problem = splitNameProblem(split.split))
        throw Error("--split-pmids \"" + argument + "\": " + *problem);
    if (split.pmidList.empty()) throw Error("--split-pmids \"" + argument + "\": no PMID list file after '='");
    return split;
}

}  // namespace linkscope
