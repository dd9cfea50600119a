#pragma once
// The corpora and the knowledge base a project names, as the dictionary options would give them:
// `simulate-curation --project URI --curator NAME` reads its KB and splits from the project's
// manifest when no corpus or KB option is on the command line.
#include <filesystem>

#include "dictionary_setup.h"
#include "project/project_manifest.h"

namespace linkscope::cli {

/// Whether the command line names a corpus, the KB or a KB filter.
bool namesCorpusOrKb(const DictionaryArguments& args);

/// Sets the KB (path, format, MRSTY and filters) and the train, dev and test corpora of `args`
/// from the manifest: a corpus file per split, or one corpus with a PMID list per split
/// (--corpus with --split-pmids). Other split names are not read. Keeps args.split; Error naming
/// the manifest's splits when it has none of that name, or when its PMID lists select from two files.
void fillFromManifest(DictionaryArguments& args, const ProjectManifest& manifest);

/// Whether the files the arguments name (KB, corpora, PMID lists) differ from the manifest's.
bool namesOtherFilesThan(const DictionaryArguments& args, const ProjectManifest& manifest);

/// For a simulated curator: when `args` names no corpus or KB, fills them from the manifest of
/// `project`; when it names other files than the manifest, says once on standard error that the
/// options are read.
void takeDictionaryFromProject(DictionaryArguments& args, const std::filesystem::path& project);

}  // namespace linkscope::cli
