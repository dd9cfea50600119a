#pragma once
// BioSyn's sparse (TF-IDF) index of a dictionary, as `eval` and `link` search it: loaded from
// --index when that file exists (and was saved for this dictionary), else built, and saved there
// when the option is given and the index is exact.
//
//   --index FILE  --sparse-search auto|exact|approximate  --sparse-candidates N
#include <cstddef>
#include <filesystem>
#include <string>

#include "console_progress.h"
#include "retrieval/name_dictionary.h"
#include "retrieval/sparse_index.h"

namespace CLI {
class App;
}

namespace linkscope::cli {

struct SparseIndexArguments {
    std::filesystem::path file;   ///< --index: loaded when it exists, else built and saved
    std::string search = "auto";  ///< --sparse-search: auto, exact or approximate
    std::size_t candidates = retrieval::TrigramCandidateOptions{}.candidates;  ///< --sparse-candidates

    /// Registers --index, --sparse-search and --sparse-candidates.
    void addOptions(CLI::App& command);
    /// Exact below SparseIndexOptions' size (auto), or always one way.
    retrieval::SparseIndexOptions options() const;
    /// "tf-idf char 1-2 ..." with, for an approximate index, how many names are scored.
    std::string describe(const retrieval::SparseIndex& index) const;
};

struct PreparedSparseIndex {
    retrieval::SparseIndex index;
    bool loaded = false;  ///< read from SparseIndexArguments::file
};

/// The index of `dictionary` with BioSyn's settings. Neither loading nor building says how far it
/// got: the stage is reported to `progress` at its start and its end, so that a log shows what a
/// long build is busy with. An approximate index is never saved (a note on standard error says so).
PreparedSparseIndex prepareSparseIndex(const SparseIndexArguments& args, const retrieval::NameDictionary& dictionary,
                                       ConsoleProgress& progress);

}  // namespace linkscope::cli
