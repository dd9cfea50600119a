#pragma once
// The corpus options every command that reads a corpus shares: --corpus-format (PubTator, BioC
// XML or a brat folder, detected by default) and --split-pmids NAME=FILE (MedMentions' layout:
// one corpus file, one PMID list per split), all read through core/corpus/corpus_input.h.
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/corpus_input.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace linkscope::cli {

struct CorpusArguments {
    std::string format = "auto";          ///< --corpus-format auto|pubtator|bioc|brat
    std::vector<std::string> splitPmids;  ///< --split-pmids NAME=FILE, repeatable

    /// Registers --corpus-format and --split-pmids (`splitNames` lists the names the command
    /// uses, for the help text).
    void addOptions(CLI::App& command, const std::string& splitNames);
    bool splitByPmids() const noexcept { return !splitPmids.empty(); }
    CorpusReadOptions readOptions(bool lenient = false) const;
    /// The --split-pmids lists; throws Error for a malformed one or a name not in `allowed`
    /// (when `allowed` is not empty).
    std::vector<PmidListSplit> lists(std::span<const std::string_view> allowed = {}) const;
    /// Reads `corpus` once and splits it by the lists, printing the notes (documents in no list,
    /// the reader's diagnostics) to standard error. Split name -> corpus.
    std::map<std::string, Corpus> readSplits(const std::filesystem::path& corpus,
                                             std::span<const std::string_view> allowed = {},
                                             bool lenient = false) const;
    /// Several inputs (files or brat folders) as one corpus, in the --corpus-format.
    Corpus read(std::span<const std::filesystem::path> inputs, bool lenient = false) const;
    /// The corpora of a --corpus INPUT... option: one per input, or, with --split-pmids, one per
    /// split of the single input (named after the split; Error for several inputs).
    std::vector<Corpus> readEach(std::span<const std::filesystem::path> inputs) const;
    /// {"--corpus-format", F, "--split-pmids", "N=F", ...}: the words of a command line that
    /// repeats these options (the caller quotes them).
    std::vector<std::string> commandWords() const;
};

/// "note: FILE: message" lines on standard error, for what a command reads but does not report.
void printNotes(std::span<const Diagnostic> notes);

}  // namespace linkscope::cli
