#include "sparse_index_setup.h"

#include <CLI/CLI.hpp>

#include "retrieval/sparse_index_io.h"
#include "retrieval/tfidf_settings.h"

namespace linkscope::cli {

void SparseIndexArguments::addOptions(CLI::App& cmd) {
    cmd.add_option("--sparse-search", search,
                   "Sparse search: exact, approximate (a char 3-gram stage picks the names that are scored), or auto: "
                   "approximate above 500,000 dictionary names")
        ->check(CLI::IsMember({"auto", "exact", "approximate"}))
        ->capture_default_str();
    cmd.add_option("--sparse-candidates", candidates, "Approximate sparse search: names scored per query")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
        ->capture_default_str();
    cmd.add_option("--index", file, "Sparse index file: loaded when it exists (and matches), else built and saved");
}

retrieval::SparseIndexOptions SparseIndexArguments::options() const {
    retrieval::SparseIndexOptions options;
    if (search == "exact") options.approximateAbove = 0;
    if (search == "approximate") options.approximateAbove = 1;
    options.approximate.candidates = candidates;
    return options;
}

std::string SparseIndexArguments::describe(const retrieval::SparseIndex& index) const {
    std::string text = retrieval::TfidfSettings::bioSyn().describe();
    if (index.approximate())
        text += " (approximate: the " + std::to_string(candidates) + " best names by char 3-grams scored)";
    return text;
}

PreparedSparseIndex prepareSparseIndex(const SparseIndexArguments& args, const retrieval::NameDictionary& dictionary,
                                       ConsoleProgress& progress) {
    const auto settings = retrieval::TfidfSettings::bioSyn();
    if (!args.file.empty() && std::filesystem::exists(args.file)) {
        progress.report("Loading sparse index", 0.0);
        PreparedSparseIndex prepared{retrieval::loadSparseIndex(args.file, dictionary, settings, args.options()), true};
        progress.report("Loading sparse index", 1.0);
        return prepared;
    }
    progress.report("Building sparse index", 0.0);
    PreparedSparseIndex prepared{retrieval::SparseIndex::build(dictionary, settings, args.options()), false};
    progress.report("Building sparse index", 1.0);
    if (!args.file.empty()) retrieval::saveSparseIndex(prepared.index, args.file);
    return prepared;
}

}  // namespace linkscope::cli
