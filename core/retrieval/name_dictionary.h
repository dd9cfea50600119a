#pragma once
// What a name-based linker searches: normalized names, each with the concepts it names. BioSyn
// calls this the dictionary; for evaluation it is the KB's names plus the training mentions.
// The linker ranks entries; the evaluation reads the ids of the ranked entries.
#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::retrieval {

/// One searchable name. Several ids mean the name was left shared by several concepts (an
/// unresolved homonym, or a training mention whose gold was a composite).
struct DictionaryEntry {
    std::string name;              ///< normalized, as the linker compares it
    std::vector<std::string> ids;  ///< canonical concept ids ("MESH:D012878"), at least one
};

using NameDictionary = std::vector<DictionaryEntry>;

/// One ranked result: an index into the NameDictionary and its score (higher is better).
struct Candidate {
    std::uint32_t entry = 0;
    float score = 0.0f;
};

}  // namespace linkscope::retrieval
