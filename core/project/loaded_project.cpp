#include "project/loaded_project.h"

#include <algorithm>
#include <future>
#include <numeric>

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
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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
        if (line.starts_with("# The Comparative Toxicogenomics Database") || line.starts_with("# Fields:"))
            return KbFormat::Ctd;
        if (line.starts_with("#")) continue;
        if (line.find("||") != std::string::npos) return KbFormat::Medic;
        if (std::count(line.begin(), line.end(), '|') >= 17) return KbFormat::Umls;
        if (name.ends_with(".tsv") || name.ends_with(".tsv.gz")) return KbFormat::Ctd;
        reader.fail(
            "cannot tell the vocabulary format (expected MEDIC \"IDS||names\", CTD TSV or UMLS MRCONSO.RRF); "
            "name it with --kb-format");
    }
    throw ParseError(file.string(), 0, "empty vocabulary file");
}

kb::KnowledgeBase loadKnowledgeBase(const KbReference& reference, std::vector<Diagnostic>& diagnostics) {
    kb::KbLoadResult result;
    if (reference.filtered() && reference.format != KbFormat::Umls)
        throw Error(reference.path.string() +
                    ": semantic-type, source (SAB) and language filters are for UMLS; this is " +
                    kbFormatName(reference.format));
    switch (reference.format) {
        case KbFormat::Medic:
            result = kb::loadDictionary(reference.path);
            break;
        case KbFormat::Ctd:
            result = kb::loadCtd(reference.path);
            break;
        case KbFormat::Umls: {
            kb::UmlsOptions options;
            options.semanticTypes = reference.semanticTypeFilter;
            options.sources = reference.sources;
            if (!reference.languages.empty()) options.languages = reference.languages;
            result = kb::loadUmls(reference.path,
                                  reference.semanticTypes.empty()
                                      ? std::nullopt
                                      : std::optional<std::filesystem::path>(reference.semanticTypes),
                                  options);
            break;
        }
    }
    append(diagnostics, std::move(result.diagnostics));
    return std::move(result.kb);
}

// The distinct names are sorted by text once and the pairs by their name's rank: at UMLS size
// 1.5 M pairs share 0.2 M names, and a stable sort comparing the texts pair against pair
// (random reads of the string pool) took a large share of the time before the window opens
// (benchmarks/ui_stall, "project shown at").
std::vector<std::size_t> homonymPairsByName(const kb::KnowledgeBase& kb, const kb::HomonymExpansion& homonyms) {
    std::vector<std::size_t> pairs;
    std::vector<kb::StringId> names;
    for (std::size_t pair = 0; pair < homonyms.pairCount(); ++pair)
        if (homonyms.isHomonym(pair)) {
            pairs.push_back(pair);
            names.push_back(kb.pairName(pair));
        }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<std::uint32_t> byText(names.size());
    std::iota(byText.begin(), byText.end(), 0u);
    std::sort(byText.begin(), byText.end(), [&](std::uint32_t a, std::uint32_t b) {
        return kb.strings().view(names[a]) < kb.strings().view(names[b]);
    });
    std::vector<std::uint32_t> rankOf(names.size());  // by position in `names` (ascending ids)
    for (std::uint32_t rank = 0; rank < byText.size(); ++rank) rankOf[byText[rank]] = rank;
    std::vector<std::pair<std::uint32_t, std::size_t>> keyed;  // (rank of the name, pair)
    keyed.reserve(pairs.size());
    for (const std::size_t pair : pairs) {
        const auto position = std::lower_bound(names.begin(), names.end(), kb.pairName(pair)) - names.begin();
        keyed.emplace_back(rankOf[static_cast<std::size_t>(position)], pair);
    }
    std::sort(keyed.begin(), keyed.end());  // the pair breaks ties: KB order within a name
    for (std::size_t i = 0; i < keyed.size(); ++i) pairs[i] = keyed[i].second;
    return pairs;
}

LoadedProject loadProject(const ProjectManifest& manifest, const ProgressSink& progress) {
    LoadedProject project;
    project.manifest = manifest;
    // The corpora are read on a thread of their own while the KB loads: the two do not depend
    // on each other, and at MedMentions + UMLS size the corpus takes seconds that the window
    // would otherwise wait for after the KB's load (benchmarks/ui_stall). Only this thread reports
    // progress (a sink need not be thread-safe); the reader only asks whether to stop.
    std::vector<Diagnostic> corpusDiagnostics;
    ProgressSink corpusProgress;
    corpusProgress.cancelled = progress.cancelled;
    auto corpora = std::async(std::launch::async, [&manifest, &corpusDiagnostics, corpusProgress] {
        return readReferencedCorpora(manifest.corpora, corpusDiagnostics, {},
                                     [&](const CorpusReference&) { corpusProgress.checkCancelled(); });
    });
    // The corpus thread is joined before its diagnostics go out of scope, also on an error here.
    struct Join {
        std::future<std::vector<SplitCorpus>>& future;
        ~Join() {
            if (future.valid()) future.wait();
        }
    } join{corpora};

    // The KB is by far the largest input; give it most of the progress bar.
    progress("Loading knowledge base " + manifest.knowledgeBase.path.filename().string() + " (corpora read alongside)",
             0.0);
    auto kb = std::make_unique<kb::KnowledgeBase>(loadKnowledgeBase(manifest.knowledgeBase, project.diagnostics));
    progress.checkCancelled();
    progress("Expanding homonyms", 0.6);
    project.homonyms = std::make_unique<kb::HomonymExpansion>(kb::expandHomonyms(*kb));
    project.homonymPairs = homonymPairsByName(*kb, *project.homonyms);
    project.kb = std::move(kb);
    progress.checkCancelled();

    progress("Reading the corpora", 0.9);
    project.splits = corpora.get();  // rethrows the reader's ParseError or Cancelled
    append(project.diagnostics, std::move(corpusDiagnostics));
    progress.checkCancelled();
    progress("Project loaded", 1.0);
    return project;
}

}  // namespace linkscope
