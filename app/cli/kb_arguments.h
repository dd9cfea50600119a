#pragma once
// The UMLS filters of the commands that load a knowledge base: --mrsty (MRSTY.RRF),
// --kb-semantic-types (TUIs or st21pv, each with its descendants), --kb-sources (SABs or st21pv),
// --kb-languages (LATs, default ENG). They fill a KbReference, which loadKnowledgeBase() reads.
#include <filesystem>
#include <string>
#include <vector>

#include "project/project_manifest.h"

namespace CLI {
class App;
}

namespace linkscope::cli {

struct KbFilterArguments {
    std::filesystem::path mrsty;
    std::vector<std::string> semanticTypes;
    std::vector<std::string> sources;
    std::vector<std::string> languages;

    /// Registers the four options; `withMrsty` false where the command registers --mrsty itself.
    void addOptions(CLI::App& command, bool withMrsty = true);
    /// Sets MRSTY and the filters (set names expanded, TUIs checked: Error otherwise).
    void applyTo(KbReference& reference) const;
    /// The words of a command line that repeats these options (the caller quotes them).
    std::vector<std::string> commandWords() const;
};

/// The KbReference of a --kb FILE with --kb-format NAME|auto and the filters.
KbReference kbReferenceOf(const std::filesystem::path& kb, const std::string& format, const KbFilterArguments& filters);

}  // namespace linkscope::cli
