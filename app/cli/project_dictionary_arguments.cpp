#include "project_dictionary_arguments.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "project/project_store.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

std::vector<std::filesystem::path>* filesFor(DictionaryArguments& args, std::string_view split) {
    if (split == "train") return &args.train;
    if (split == "dev") return &args.dev;
    if (split == "test") return &args.test;
    return nullptr;
}

bool isDictionarySplit(std::string_view split) { return split == "train" || split == "dev" || split == "test"; }

std::string splitNames(const ProjectManifest& manifest) {
    std::string names;
    std::set<std::string> seen;
    for (const CorpusReference& corpus : manifest.corpora) {
        if (!seen.insert(corpus.split).second) continue;
        if (!names.empty()) names += ", ";
        names += corpus.split;
    }
    return names.empty() ? std::string("none") : names;
}

std::filesystem::path comparable(const std::filesystem::path& path) {
    std::error_code error;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, error);
    return error ? path.lexically_normal() : canonical;
}

// The KB, and per split the corpus files and PMID lists, that a manifest or the arguments name.
using NamedFiles = std::map<std::string, std::set<std::filesystem::path>>;

NamedFiles filesOf(const ProjectManifest& manifest) {
    NamedFiles files{{"kb", {comparable(manifest.knowledgeBase.path)}}};
    for (const CorpusReference& corpus : manifest.corpora) {
        if (!isDictionarySplit(corpus.split)) continue;
        files[corpus.split].insert(comparable(corpus.path));
        if (!corpus.pmidList.empty()) files[corpus.split].insert(comparable(corpus.pmidList));
    }
    return files;
}

NamedFiles filesOf(const DictionaryArguments& args) {
    NamedFiles files;
    if (!args.kb.empty()) files["kb"].insert(comparable(args.kb));
    const std::pair<const char*, const std::vector<std::filesystem::path>*> splits[] = {
        {"train", &args.train}, {"dev", &args.dev}, {"test", &args.test}};
    for (const auto& [split, given] : splits)
        for (const auto& file : *given) files[split].insert(comparable(file));
    for (const std::string& list : args.corpusOptions.splitPmids)
        if (const auto equals = list.find('='); equals != std::string::npos) {
            auto& split = files[list.substr(0, equals)];
            split.insert(comparable(args.corpus));
            split.insert(comparable(list.substr(equals + 1)));
        }
    return files;
}

}  // namespace

bool namesCorpusOrKb(const DictionaryArguments& args) {
    const KbFilterArguments& filters = args.kbFilters;
    return !args.kb.empty() || !args.train.empty() || !args.dev.empty() || !args.test.empty() || !args.corpus.empty() ||
           args.corpusOptions.splitByPmids() || !filters.mrsty.empty() || !filters.semanticTypes.empty() ||
           !filters.sources.empty() || !filters.languages.empty();
}

void fillFromManifest(DictionaryArguments& args, const ProjectManifest& manifest) {
    const bool hasSplit = std::any_of(manifest.corpora.begin(), manifest.corpora.end(),
                                      [&](const CorpusReference& corpus) { return corpus.split == args.split; });
    if (!hasSplit)
        throw Error("--split " + args.split + ": the project names no such split (its splits: " + splitNames(manifest) +
                    ")");
    const KbReference& kb = manifest.knowledgeBase;
    args.kb = kb.path;
    args.kbFormat = kbFormatName(kb.format);
    args.kbFilters.mrsty = kb.semanticTypes;
    args.kbFilters.semanticTypes = kb.semanticTypeFilter;
    args.kbFilters.sources = kb.sources;
    args.kbFilters.languages = kb.languages;

    std::set<CorpusFormat> formats;
    for (const CorpusReference& corpus : manifest.corpora) {
        std::vector<std::filesystem::path>* files = filesFor(args, corpus.split);
        if (!files) continue;  // a split the dictionary does not read
        formats.insert(corpus.format);
        if (corpus.pmidList.empty()) {
            files->push_back(corpus.path);
            continue;
        }
        if (!args.corpus.empty() && args.corpus != corpus.path)
            throw Error("the project's PMID lists select from two corpus files (" + args.corpus.string() + ", " +
                        corpus.path.string() + "): give the corpora as options");
        args.corpus = corpus.path;
        args.corpusOptions.splitPmids.push_back(corpus.split + "=" + corpus.pmidList.string());
    }
    // One format for every corpus read, as --corpus-format gives it; detected when they differ.
    args.corpusOptions.format = formats.size() == 1 ? std::string(corpusFormatName(*formats.begin())) : "auto";
}

bool namesOtherFilesThan(const DictionaryArguments& args, const ProjectManifest& manifest) {
    return filesOf(args) != filesOf(manifest);
}

void takeDictionaryFromProject(DictionaryArguments& args, const std::filesystem::path& project) {
    const ProjectManifest manifest = project::ProjectStore::open(project).manifest();
    if (!namesCorpusOrKb(args)) {
        fillFromManifest(args, manifest);
        return;
    }
    if (namesOtherFilesThan(args, manifest))
        std::cerr << "note: the corpora and KB given as options are read, not the files the project names\n";
}

}  // namespace linkscope::cli
