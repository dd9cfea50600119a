#pragma once
// Train / dev / test splits: from one file per split (NCBI Disease, BC5CDR) or from PMID lists
// over one corpus (MedMentions). Overlaps and gaps are reported, never silently resolved.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus.h"
#include "corpus/pmid_list.h"
#include "corpus/pubtator_reader.h"

namespace linkscope {

struct CorpusSplit {
    std::string name;
    Corpus corpus;
};

/// A PMID found in more than one split (a leak between training and evaluation data).
struct SplitOverlap {
    std::string pmid;
    std::vector<std::string> splits;  ///< split names, in the order the splits were given
};

struct SplitFile {
    std::string name;  ///< "train", "dev", "test"
    std::filesystem::path path;
};

struct SplitCorpora {
    std::vector<CorpusSplit> splits;     ///< in the order given
    std::vector<SplitOverlap> overlaps;  ///< documents present in several split files

    const Corpus* find(std::string_view splitName) const noexcept;
};

/// Reads each split file as its own corpus (named after the split) and reports documents that
/// occur in more than one of them.
SplitCorpora readSplitFiles(std::span<const SplitFile> files, const PubTatorOptions& options = {});

/// A PMID that a list names but the corpus does not hold.
struct ListedButAbsent {
    std::string list;
    std::string pmid;
    std::string file;
    std::size_t line = 0;
};

struct CorpusPartition {
    /// One per list, in list order, documents in corpus order. A document named by several
    /// lists goes to the first of them only (see overlaps), so the splits stay disjoint.
    std::vector<CorpusSplit> splits;
    std::vector<ListedButAbsent> absent;  ///< listed PMIDs the corpus lacks
    std::vector<std::string> unlisted;    ///< corpus documents in no list, in corpus order
    std::vector<SplitOverlap> overlaps;   ///< PMIDs named by more than one list

    const Corpus* find(std::string_view splitName) const noexcept;
};

/// Partitions the corpus by named PMID lists (copies of the documents).
CorpusPartition partitionByPmidLists(const Corpus& corpus, std::span<const PmidList> lists);

}  // namespace linkscope
