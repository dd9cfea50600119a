#include "kb_arguments.h"

#include <CLI/CLI.hpp>

#include "kb/umls_subsets.h"
#include "project/loaded_project.h"

namespace linkscope::cli {

void KbFilterArguments::addOptions(CLI::App& cmd, bool withMrsty) {
    if (withMrsty)
        cmd.add_option("--mrsty", mrsty, "UMLS MRSTY.RRF: the concepts' semantic types")->check(CLI::ExistingFile);
    cmd.add_option("--kb-semantic-types", semanticTypes,
                   "UMLS: keep concepts of these semantic types (TUIs such as T047, or st21pv for MedMentions' 21), "
                   "each with its descendants in the type hierarchy; needs --mrsty")
        ->delimiter(',');
    cmd.add_option("--kb-sources", sources,
                   "UMLS: keep names from these source vocabularies (SAB, e.g. MSH,SNOMEDCT_US; st21pv for "
                   "MedMentions' 18)")
        ->delimiter(',');
    cmd.add_option("--kb-languages", languages, "UMLS: keep names in these languages (LAT; default ENG)")
        ->delimiter(',');
}

void KbFilterArguments::applyTo(KbReference& reference) const {
    reference.semanticTypes = mrsty;
    reference.semanticTypeFilter = kb::semanticTypeFilter(semanticTypes);
    reference.sources = kb::sourceFilter(sources);
    reference.languages = kb::languageFilter(languages);
    if (!reference.semanticTypeFilter.empty() && mrsty.empty())
        throw Error("--kb-semantic-types needs --mrsty MRSTY.RRF (the concepts' semantic types)");
}

std::vector<std::string> KbFilterArguments::commandWords() const {
    std::vector<std::string> words;
    if (!mrsty.empty()) words.insert(words.end(), {"--mrsty", mrsty.string()});
    const auto add = [&words](const char* option, const std::vector<std::string>& values) {
        for (const auto& value : values) words.insert(words.end(), {option, value});
    };
    add("--kb-semantic-types", semanticTypes);
    add("--kb-sources", sources);
    add("--kb-languages", languages);
    return words;
}

KbReference kbReferenceOf(const std::filesystem::path& kb, const std::string& format,
                          const KbFilterArguments& filters) {
    KbReference reference;
    reference.path = kb;
    reference.format = format == "auto" ? detectKbFormat(kb) : kbFormatFromName(format);
    filters.applyTo(reference);
    return reference;
}

}  // namespace linkscope::cli
