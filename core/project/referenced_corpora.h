#pragma once
// Reading the corpora that a manifest (or a project file) references, whatever their format:
// what the GUI's project loader and the export share, so that both open PubTator, BioC XML,
// brat folders and MedMentions' corpus + PMID lists alike.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "project/project_manifest.h"
#include "util/error.h"

namespace linkscope {

struct SplitCorpus {
    std::string split;
    Corpus corpus;
};

/// Reads the corpus of each reference that `wanted` accepts (all when it is empty), in reference
/// order. References that share a file with PMID lists are read once and partitioned by all of
/// their lists together (corpus_input.h: a listed PMID the corpus lacks, or one in two lists, is
/// a ParseError naming the list file and line), also when only some of them are wanted, so the
/// notes about documents in no list are about the whole project. Every reader's diagnostics go
/// to `notes` (the corpora come back without them). `reading` is told before each file is read.
std::vector<SplitCorpus> readReferencedCorpora(std::span<const CorpusReference> references,
                                               std::vector<Diagnostic>& notes,
                                               const std::function<bool(const CorpusReference&)>& wanted = {},
                                               const std::function<void(const CorpusReference&)>& reading = {});

}  // namespace linkscope
