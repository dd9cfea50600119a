#pragma once
// Saving a built SparseIndex and loading it again, so that a KB of millions of names is indexed
// once. A saved index is tied to the dictionary and the settings that made it: loading checks
// both and refuses, with a message that says what differs, an index made for anything else
// (its entry numbers would point at the wrong names).
//
// File layout (little-endian; see sparse_index_io.cpp for the exact fields): magic "LSSPARSE",
// version, total file size, the TF-IDF settings, the dictionary fingerprint, the vocabulary
// (sorted terms and their idf), then the index's body, and a CRC-32 of everything before it, so
// that truncated or damaged files are recognised instead of being searched. The body is the
// postings of an exact index (version 1), or the names' rows and the 3-gram candidate stage of an
// approximate one (version 2, its arrays aligned to 8 bytes).
//
// Loading maps the file read-only and shared (mapped_file.h) and reads the checksum over the
// mapping. An approximate index's rows, 3-gram postings and name hashes are then used in place:
// the loaded index keeps the mapping, and processes on one machine that load the same file share
// its pages. An exact index (at most SparseIndexOptions::approximateAbove names when it was
// built) is copied into memory and the mapping released.
#include <cstdint>
#include <filesystem>

#include "retrieval/dictionary_fingerprint.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"

namespace linkscope::retrieval {

/// The version an exact index is written in; an approximate one is written in version 2. Both
/// are read, and builds that read only version 1 still read every exact index.
inline constexpr std::uint32_t kSparseIndexFormatVersion = 1;
inline constexpr std::uint32_t kApproximateSparseIndexFormatVersion = 2;

/// Writes the index atomically (a temporary file renamed on success). Throws Error on failure.
void saveSparseIndex(const SparseIndex& index, const std::filesystem::path& file);

/// Loads an index saved for `dictionary` with `settings`. Throws ParseError (naming the file)
/// when the file is missing, truncated, damaged or of another format or version, and Error
/// (naming the file and both sides) when it was built with other settings or for another
/// dictionary.
/// `options` are the speed / memory choices of the loaded index (they are not saved); whether it
/// is approximate is the saved index's (approximateAbove is a choice made when it was built), and
/// an approximate one searches with `options.approximate`.
SparseIndex loadSparseIndex(const std::filesystem::path& file, const NameDictionary& dictionary,
                            const TfidfSettings& settings, const SparseIndexOptions& options = {});
/// Same, for a caller that holds only the dictionary's fingerprint.
SparseIndex loadSparseIndex(const std::filesystem::path& file, const DictionaryFingerprint& expected,
                            const TfidfSettings& settings, const SparseIndexOptions& options = {});

/// What a saved index says about itself, read from its header alone (the body is not checked).
struct SparseIndexFileInfo {
    std::uint32_t version = 0;
    TfidfSettings settings;
    DictionaryFingerprint fingerprint;
    std::uint64_t terms = 0;
    std::uint64_t fileBytes = 0;
    bool approximate = false;  ///< version 2: rows and a 3-gram stage instead of postings
};
/// Throws ParseError as loadSparseIndex does for a file that is not a readable index.
SparseIndexFileInfo readSparseIndexInfo(const std::filesystem::path& file);

}  // namespace linkscope::retrieval
