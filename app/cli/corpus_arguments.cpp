#include "corpus_arguments.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::cli {

void CorpusArguments::addOptions(CLI::App& cmd, const std::string& splitNames) {
    cmd.add_option("--corpus-format", format,
                   "Format of every corpus input: auto (default: a folder is brat, a file starting with '<' BioC XML, "
                   "one starting with '{' BioC JSON, or BigBio JSON lines when named .jsonl, else PubTator), "
                   "pubtator, bioc, bioc-json, brat or bigbio")
        ->check(CLI::IsMember({"auto", "pubtator", "bioc", "bioc-json", "brat", "bigbio"}));
    cmd.add_option("--split-pmids", splitPmids,
                   "NAME=FILE: the split NAME (" + splitNames +
                       ") is the documents of --corpus that FILE lists, one PMID per line (MedMentions' "
                       "corpus_pubtator_pmids_*.txt); repeat per split")
        ->take_all();
}

CorpusReadOptions CorpusArguments::readOptions(bool lenient) const {
    CorpusReadOptions options;
    options.format = corpusFormatFromName(format);  // nullopt for "auto"
    options.lenient = lenient;
    return options;
}

std::vector<PmidListSplit> CorpusArguments::lists(std::span<const std::string_view> allowed) const {
    std::vector<PmidListSplit> out;
    for (const auto& argument : splitPmids) {
        PmidListSplit split = parsePmidListSplit(argument);
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), split.split) == allowed.end()) {
            std::string names;
            for (const auto name : allowed) names += (names.empty() ? "" : ", ") + std::string(name);
            throw Error("--split-pmids \"" + argument + "\": this command uses the splits " + names);
        }
        // Checked before the corpus is read: a missing list, a folder or a FIFO is named at once,
        // and nothing waits on it (the list is opened again, the same way, when it is read).
        (void)InputFile::open(split.pmidList, "the PMID list of --split-pmids " + split.split);
        out.push_back(std::move(split));
    }
    return out;
}

std::map<std::string, Corpus> CorpusArguments::readSplits(const std::filesystem::path& corpus,
                                                          std::span<const std::string_view> allowed,
                                                          bool lenient) const {
    const std::vector<PmidListSplit> wanted = lists(allowed);
    SplitsFromPmidLists read = readSplitsByPmidLists(corpus, wanted, readOptions(lenient));
    printNotes(read.notes);
    std::map<std::string, Corpus> splits;
    for (auto& split : read.splits) splits.emplace(split.name, std::move(split.corpus));
    return splits;
}

Corpus CorpusArguments::read(std::span<const std::filesystem::path> inputs, bool lenient) const {
    return readCorpus(inputs, readOptions(lenient));
}

std::vector<Corpus> CorpusArguments::readEach(std::span<const std::filesystem::path> inputs) const {
    std::vector<Corpus> corpora;
    if (!splitByPmids()) {
        for (const auto& input : inputs) corpora.push_back(read(std::span(&input, 1)));
        return corpora;
    }
    if (inputs.size() != 1)
        throw Error("--split-pmids splits one --corpus; " + std::to_string(inputs.size()) + " were given");
    SplitsFromPmidLists splits = readSplitsByPmidLists(inputs.front(), lists(), readOptions());
    printNotes(splits.notes);
    for (auto& split : splits.splits) corpora.push_back(std::move(split.corpus));
    return corpora;
}

std::vector<std::string> CorpusArguments::commandWords() const {
    std::vector<std::string> words;
    if (format != "auto") words.insert(words.end(), {"--corpus-format", format});
    for (const auto& split : splitPmids) words.insert(words.end(), {"--split-pmids", split});
    return words;
}

void printNotes(std::span<const Diagnostic> notes) {
    for (const auto& note : notes) std::cerr << "note: " << note.toString() << '\n';
}

}  // namespace linkscope::cli
