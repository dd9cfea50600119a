#pragma once
// A project in memory: its manifest, the knowledge base (with its homonym expansion) and the
// corpora of each split, plus everything the loaders noticed. Built once on a worker thread,
// then shared read-only with the GUI.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "kb/homonyms.h"
#include "kb/knowledge_base.h"
#include "project/project_manifest.h"
#include "project/referenced_corpora.h"  // SplitCorpus
#include "util/error.h"
#include "util/progress.h"

namespace linkscope {

struct LoadedProject {
    ProjectManifest manifest;
    /// Held by pointer: the homonym expansion refers to the KB, which must therefore keep its
    /// address when the project is moved.
    std::unique_ptr<const kb::KnowledgeBase> kb;
    /// BELHD homonym expansion of the KB's exact names.
    std::unique_ptr<const kb::HomonymExpansion> homonyms;
    /// The (entity, name) pairs that are homonyms, ordered by their original name (then pair),
    /// computed on the loading thread so the GUI only lists them.
    std::vector<std::size_t> homonymPairs;
    std::vector<SplitCorpus> splits;
    std::vector<Diagnostic> diagnostics;
};

/// Loads the knowledge base and every corpus of the manifest. Throws ParseError for broken
/// files and Cancelled when `progress` asks to stop.
LoadedProject loadProject(const ProjectManifest& manifest, const ProgressSink& progress = {});

/// The pairs of `homonyms` that are homonyms, ordered by their name's text (bytewise), the
/// pairs of one name in ascending pair order: LoadedProject::homonymPairs.
std::vector<std::size_t> homonymPairsByName(const kb::KnowledgeBase& kb, const kb::HomonymExpansion& homonyms);

/// Loads a knowledge base in the given format (MRSTY.RRF and the filters only for UMLS: filters
/// on another format are an Error), appending the loader's diagnostics.
kb::KnowledgeBase loadKnowledgeBase(const KbReference& reference, std::vector<Diagnostic>& diagnostics);

/// The format a vocabulary file is in, judged from its name and first line: MRCONSO*.RRF is
/// UMLS, a CTD header ("# The Comparative Toxicogenomics Database") or *.tsv is CTD, anything
/// with "||" on its first data line is a MEDIC / BioSyn dictionary. Throws ParseError otherwise.
KbFormat detectKbFormat(const std::filesystem::path& file);

}  // namespace linkscope
