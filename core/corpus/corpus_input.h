#pragma once
// Opening a corpus whatever its format: one place that the CLI's commands and the project
// manifest share, so that every reader of a corpus takes PubTator, BioC XML, BioC JSON, brat and BigBio alike, and
// MedMentions' layout (one corpus file, one PMID list per split).
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/corpus_format.h"
#include "corpus/corpus_split.h"
#include "util/error.h"

namespace linkscope {

struct CorpusReadOptions {
    /// nullopt: detected per input (detectCorpusFormat).
    std::optional<CorpusFormat> format;
    /// PubTator only (PubTatorOptions::lenient): offset problems become Diagnostics. The BioC and
    /// brat readers have no lenient mode; asking for one with them is an Error, not ignored.
    bool lenient = false;
    /// Corpus name; empty: the reader's (the file name without extensions, joined by '+').
    std::string name;
};

/// Reads one corpus file (PubTator, BioC XML or JSON, BigBio) or brat folder. Errors are the readers' ParseErrors.
Corpus readCorpus(const std::filesystem::path& path, const CorpusReadOptions& options = {});

/// Reads several inputs into one corpus, in the order given; a PMID already read from an earlier
/// input keeps its first copy and is recorded in Corpus::duplicates and Corpus::diagnostics, as
/// readPubTator does for several files. Inputs may be of different formats.
Corpus readCorpus(std::span<const std::filesystem::path> paths, const CorpusReadOptions& options = {});

/// A split given by a PMID list over a corpus (MedMentions: train=corpus_pubtator_pmids_trng.txt).
struct PmidListSplit {
    std::string split;               ///< the split's name ("train", "dev", ...)
    std::filesystem::path pmidList;  ///< one PMID per line (pmid_list.h)
};

struct SplitsFromPmidLists {
    std::vector<CorpusSplit> splits;  ///< one per list, in list order, documents in corpus order
    /// What the caller must show but that loses nothing it asked for: the corpus's own diagnostics,
    /// and the documents that no list names (left out of every split), counted with examples.
    std::vector<Diagnostic> notes;
};

/// Reads the corpus once and gives each list its documents. Nothing is resolved silently; these
/// are ParseErrors naming the list file and line:
///  - a listed PMID that the corpus does not hold,
///  - a PMID in two lists (the splits would share a document: a leak between them),
///  - two lists of one split name, and split names that splitNameProblem() refuses (line 0).
/// Documents in no list are a note (evaluating on a subset of the splits is legitimate).
/// Each listed PMID is checked as it is read, and the reading stops at the first wrong one.
/// Memory: the corpus and its split copies, plus one slot per corpus document; nothing per
/// listed PMID (forEachListedPmid), so a list of millions of unknown ids costs one line.
SplitsFromPmidLists readSplitsByPmidLists(const std::filesystem::path& corpus, std::span<const PmidListSplit> lists,
                                          const CorpusReadOptions& options = {});

/// Partitions an already read corpus the same way (same errors and notes; `corpusFile` names it
/// in the notes).
SplitsFromPmidLists splitByPmidLists(const Corpus& corpus, const std::string& corpusFile,
                                     std::span<const PmidListSplit> lists);

/// Parses "NAME=FILE" (the CLI's --split-pmids). Throws Error naming the argument when there is
/// no '=', the name is empty or not a valid split name, or the file part is empty.
PmidListSplit parsePmidListSplit(const std::string& argument);

}  // namespace linkscope
