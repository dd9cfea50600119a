#include "retrieval/dictionary_fingerprint.h"

#include <cstdio>

#include "util/fnv1a.h"

namespace linkscope::retrieval {
namespace {

std::string withThousands(std::uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text.push_back(',');
        text.push_back(digits[i]);
    }
    return text;
}

}  // namespace

std::string DictionaryFingerprint::describe() const {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(hash));
    return withThousands(names) + (names == 1 ? " name" : " names") + ", fingerprint " + hex;
}

DictionaryFingerprint fingerprintOf(const NameDictionary& dictionary) {
    Fnv1a64 hasher;
    for (const auto& entry : dictionary) {
        hasher.text(entry.name);
        hasher.number(entry.ids.size());
        for (const auto& id : entry.ids) hasher.text(id);
    }
    return {dictionary.size(), hasher.value()};
}

DictionaryFingerprint fingerprintOf(std::span<const std::string_view> names) {
    Fnv1a64 hasher;
    for (const auto name : names) {
        hasher.text(name);
        hasher.number(0);
    }
    return {names.size(), hasher.value()};
}

}  // namespace linkscope::retrieval
