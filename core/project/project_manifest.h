#pragma once
// A project manifest: a small JSON file naming the corpus files (with their split) and the
// knowledge base of a linking project, with paths relative to the manifest. The demo project is
// one; the SQLite project store of the curation GUI references the same information.
//
//   { "format": "linkscope-project-manifest", "version": 1, "name": "...",
//     "knowledgeBase": { "path": "kb.txt", "format": "medic|ctd|umls", "semanticTypes": "MRSTY.RRF" },
//     "corpora": [ { "split": "train", "path": "train.txt", "format": "pubtator|bioc|bioc-json|brat|bigbio|auto" }, ... ] }
//
// Version 2 adds what a version-1 reader would silently get wrong (it ignores unknown keys), so a
// manifest that uses them must say "version": 2 and older builds refuse it:
//   - a corpus given as one file plus a PMID list per split (MedMentions' layout):
//       { "path": "corpus_pubtator.txt.gz", "pmidLists": [ { "split": "train", "path": "pmids_trng.txt" }, ... ] }
//   - UMLS filters in "knowledgeBase": "semanticTypeFilter" (TUIs or "st21pv"), "sources" (SABs
//     or "st21pv"), "languages" (LATs; default ENG); each a string or an array of strings.
// A corpus "format" is optional ("auto", the default, detects it: a folder is brat, a file that
// starts with '<' BioC XML, one that starts with '{' BioC JSON or BigBio JSON lines (see
// detectCorpusFormat), any other file PubTator).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/corpus_format.h"
#include "corpus/split_name.h"  // splitNameProblem(), once declared here

namespace linkscope {

enum class KbFormat { Medic, Ctd, Umls };

struct KbReference {
    std::filesystem::path path;  ///< absolute
    KbFormat format = KbFormat::Medic;
    std::filesystem::path semanticTypes;  ///< UMLS MRSTY.RRF (absolute), empty when not given
    /// UMLS filters (kb/umls_subsets.h, set names expanded); empty: none. Only a UMLS KB takes them.
    std::vector<std::string> semanticTypeFilter;  ///< TUIs, each with its descendants
    std::vector<std::string> sources;             ///< SABs
    std::vector<std::string> languages;           ///< LATs; empty: ENG

    bool filtered() const noexcept { return !semanticTypeFilter.empty() || !sources.empty() || !languages.empty(); }
};

struct CorpusReference {
    std::string split;           ///< "train", "dev", "test", or any name
    std::filesystem::path path;  ///< absolute
    CorpusFormat format = CorpusFormat::PubTator;
    /// The split is the documents of `path` that this PMID list names (absolute); empty: the
    /// whole of `path`. References with lists over one path are read together (corpus_input.h).
    std::filesystem::path pmidList;
};

struct ProjectManifest {
    std::filesystem::path file;  ///< the manifest itself
    std::string name;
    std::string description;
    KbReference knowledgeBase;
    std::vector<CorpusReference> corpora;
};

/// Reads and checks a manifest. Throws ParseError naming the file (and the line for JSON syntax
/// errors) when it is not a manifest, a field is missing or of the wrong kind, or a referenced
/// file does not exist.
ProjectManifest readProjectManifest(const std::filesystem::path& file);

KbFormat kbFormatFromName(const std::string& name);  ///< throws Error for an unknown name
const char* kbFormatName(KbFormat format) noexcept;

}  // namespace linkscope
