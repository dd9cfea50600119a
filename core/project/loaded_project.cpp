#include "project/loaded_project.h"

#include <algorithm>

#include "kb/ctd_loader.h"
#include "kb/dictionary_loader.h"
#include "kb/umls_loader.h"
#include "project/referenced_corpora.h"
#include "util/line_reader.h"

namespace linkscope {
namespace {

void append(std::vector<Diagnostic>& to, std::vector<Diagnostic>&& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

std::string lowerName(const std::filesystem::path& file) {
    std::string name = file.filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name;
}

}  // namespace

KbFormat detectKbFormat(const std::filesystem::path& file) {
    const std::string name = lowerName(file);
    if (name.starts_with("mrconso") && (name.ends_with(".rrf") || name.ends_with(".rrf.gz"))) return KbFormat::Umls;
    LineReader reader(file);
    std::string line;
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (line.starts_with("# The Comparative Toxicogenomics Database") || line.starts_with("# Fields:")) return KbFormat::Ctd;
        if (line.starts_with("#")) continue;
        if (line.find("||") != std::string::npos) return KbFormat::Medic;
        if (std::count(line.begin(), line.end(), '|') >= 17) return KbFormat::Umls;
        if (name.ends_with(".tsv") || name.ends_with(".tsv.gz")) return KbFormat::Ctd;
        reader.fail("cannot tell the vocabulary format (expected MEDIC \"IDS||names\", CTD TSV or UMLS MRCONSO.RRF); "
                    "name it with --kb-format");
    }
    throw ParseError(file.string(), 0, "empty vocabulary file");
}

kb::KnowledgeBase loadKnowledgeBase(const KbReference& reference, std::vector<Diagnostic>& diagnostics) {
    kb::KbLoadResult result;
    if (reference.filtered() && reference.format != KbFormat::Umls)
        throw Error(reference.path.string() + ": semantic-type, source (SAB) and language filters are for UMLS; this is " +
                    kbFormatName(reference.format));
    switch (reference.format) {
    case KbFormat::Medic: result = kb::loadDictionary(reference.path); break;
    case KbFormat::Ctd: result = kb::loadCtd(reference.path); break;
    case KbFormat::Umls: {
        kb::UmlsOptions options;
        options.semanticTypes = reference.semanticTypeFilter;
        options.sources = reference.sources;
        if (!reference.languages.empty()) options.languages = reference.languages;
        result = kb::loadUmls(reference.path,
                              reference.semanticTypes.empty() ? std::nullopt
                                                              : std::optional<std::filesystem::path>(reference.semanticTypes),
                              options);
        break;
    }
    }
    append(diagnostics, std::move(result.diagnostics));
    return std::move(result.kb);
}

LoadedProject loadProject(const ProjectManifest& manifest, const ProgressSink& progress) {
    LoadedProject project;
    project.manifest = manifest;
    // The KB is by far the largest input; give it half of the progress bar.
    progress("Loading knowledge base " + manifest.knowledgeBase.path.filename().string(), 0.0);
    auto kb = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(manifest.knowledgeBase, project.diagnostics));
    progress.checkCancelled();
    progress("Expanding homonyms", 0.4);
    project.homonyms = std::make_unique<kb::HomonymExpansion>(kb::expandHomonyms(*kb));
    for (std::size_t pair = 0; pair < project.homonyms->pairCount(); ++pair)
        if (project.homonyms->isHomonym(pair)) project.homonymPairs.push_back(pair);
    std::stable_sort(project.homonymPairs.begin(), project.homonymPairs.end(), [&kb](std::size_t a, std::size_t b) {
        return kb->strings().view(kb->pairName(a)) < kb->strings().view(kb->pairName(b));
    });
    project.kb = std::move(kb);
    progress.checkCancelled();

    const double share = 0.5 / static_cast<double>(std::max<std::size_t>(1, manifest.corpora.size()));
    double done = 0.5;
    project.splits = readReferencedCorpora(manifest.corpora, project.diagnostics, {}, [&](const CorpusReference& reference) {
        progress.checkCancelled();
        progress("Reading " + reference.split + " corpus " + reference.path.filename().string(), done);
        done += share;
    });
    progress.checkCancelled();
    progress("Project loaded", 1.0);
    return project;
}

}  // namespace linkscope
