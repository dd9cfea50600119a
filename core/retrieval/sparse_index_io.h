#pragma once
// Saving a built SparseIndex and loading it again, so that a KB of millions of names is indexed
// once. A saved index is tied to the dictionary and the settings that made it: loading checks
// both and refuses, with a message that says what differs, an index made for anything else
// (its entry numbers would point at the wrong names).
//
// File layout (version 1, little-endian; see sparse_index_io.cpp for the exact fields): magic
// "LSSPARSE", version, total file size, the TF-IDF settings, the dictionary fingerprint, the
// vocabulary (sorted terms and their idf), the postings, and a CRC-32 of everything before it,
// so that truncated or damaged files are recognised instead of being searched.
#include <cstdint>
#include <filesystem>

#include "retrieval/dictionary_fingerprint.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"

namespace linkscope::retrieval {

inline constexpr std::uint32_t kSparseIndexFormatVersion = 1;

/// Writes the index atomically (a temporary file renamed on success). Throws Error on failure.
void saveSparseIndex(const SparseIndex& index, const std::filesystem::path& file);

/// Loads an index saved for `dictionary` with `settings`. Throws ParseError (naming the file)
/// when the file is missing, truncated, damaged or of another format or version, and Error
/// (naming the file and both sides) when it was built with other settings or for another
/// dictionary.
/// `options` are the speed / memory choices of the loaded index (they are not saved).
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
};
/// Throws ParseError as loadSparseIndex does for a file that is not a readable index.
SparseIndexFileInfo readSparseIndexInfo(const std::filesystem::path& file);

}  // namespace linkscope::retrieval
