#pragma once
// What ties a saved index to the dictionary it was built from: the number of names and a 64-bit
// hash over every name and its ids, in order. Entry numbers are positions in the dictionary,
// so the same names in another order, or one id changed, is a different dictionary.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "retrieval/name_dictionary.h"

namespace linkscope::retrieval {

struct DictionaryFingerprint {
    std::uint64_t names = 0;  ///< number of entries
    std::uint64_t hash = 0;   ///< FNV-1a 64 over the length-prefixed names and ids

    bool operator==(const DictionaryFingerprint&) const = default;
    /// "73,024 names, fingerprint 0x1234abcd5678ef90"
    std::string describe() const;
};

DictionaryFingerprint fingerprintOf(const NameDictionary& dictionary);
/// For an index built from bare names: as a dictionary whose entries have no ids.
DictionaryFingerprint fingerprintOf(std::span<const std::string_view> names);

}  // namespace linkscope::retrieval
