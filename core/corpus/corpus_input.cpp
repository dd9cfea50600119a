#include "corpus/corpus_input.h"

#include <map>
#include <set>

#include "corpus/bigbio_reader.h"
#include "corpus/bioc_json_reader.h"
#include "corpus/bioc_reader.h"
#include "corpus/brat_reader.h"
#include "corpus/duplicate_documents.h"
#include "corpus/pmid_list.h"
#include "corpus/pubtator_reader.h"
#include "corpus/split_name.h"
#include "util/line_reader.h"

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

constexpr std::size_t kUnlisted = static_cast<std::size_t>(-1);

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
        case CorpusFormat::BioCJson:
            corpus = readBioCJson(path);
            break;
        case CorpusFormat::BigBio:
            corpus = readBigBio(path);
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
    std::set<std::string, std::less<>> names;
    for (const auto& list : lists) {
        if (const auto problem = splitNameProblem(list.split)) throw ParseError(list.pmidList.string(), 0, *problem);
        if (!names.insert(list.split).second)
            throw ParseError(list.pmidList.string(), 0, "a second PMID list for the split \"" + list.split + "\"");
    }
    // Each listed PMID is checked against the corpus as it is read, and the reading stops at the
    // first one that is wrong: what is held is one slot per corpus document (which list names
    // it, at which line), however long the lists are.
    struct Owner {
        std::size_t list = kUnlisted;
        std::size_t line = 0;
    };
    std::vector<Owner> owners(corpus.size());
    const Document* const firstDocument = corpus.documents().data();
    for (std::size_t i = 0; i < lists.size(); ++i) {
        const PmidListSplit& list = lists[i];
        forEachListedPmid(list.pmidList, [&](std::string_view pmid, const LineReader& reader) {
            const Document* document = corpus.find(pmid);
            if (!document)
                reader.fail("PMID " + std::string(pmid) + " of the " + list.split + " list is not in the corpus " +
                            corpusFile);
            Owner& owner = owners[static_cast<std::size_t>(document - firstDocument)];
            if (owner.list == i)
                reader.fail("PMID " + std::string(pmid) + " listed twice (first at line " + std::to_string(owner.line) +
                            ")");
            if (owner.list != kUnlisted)
                reader.fail("PMID " + std::string(pmid) + " is also in the " + lists[owner.list].split + " list (" +
                            lists[owner.list].pmidList.string() + ":" + std::to_string(owner.line) +
                            "): a document cannot be in two splits");
            owner = {i, reader.lineNumber()};
        });
    }
    SplitsFromPmidLists result;
    for (const auto& list : lists) {
        Corpus split(list.split);
        split.sourceFiles = corpus.sourceFiles;
        split.sourceFiles.push_back(list.pmidList.string());
        result.splits.push_back({list.split, std::move(split)});
    }
    std::vector<std::string> unlisted;
    for (std::size_t d = 0; d < corpus.size(); ++d) {
        const Document& document = corpus.documents()[d];
        if (owners[d].list == kUnlisted)
            unlisted.push_back(document.pmid());
        else
            result.splits[owners[d].list].corpus.add(document);
    }
    result.notes = corpus.diagnostics;
    if (!unlisted.empty())
        result.notes.push_back({corpusFile, 0,
                                std::to_string(unlisted.size()) + " of " + std::to_string(corpus.size()) +
                                    " documents are in no PMID list and in no split: " + examples(unlisted)});
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
