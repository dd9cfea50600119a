#include "retrieval/dictionary_fingerprint.h"

#include <cstdio>

namespace linkscope::retrieval {
namespace {

// FNV-1a, 64 bits: a published, fixed function, so that a fingerprint written by one build is
// checked the same way by every later one (the value is stored in index files).
class Fnv1a64 {
public:
    void bytes(std::string_view data) noexcept {
        for (const char c : data) {
            hash_ ^= static_cast<unsigned char>(c);
            hash_ *= 0x100000001B3ull;
        }
    }
    // Lengths go in first, so that ("ab", "c") and ("a", "bc") hash differently.
    void number(std::uint64_t value) noexcept {
        for (int i = 0; i < 8; ++i) {
            hash_ ^= (value >> (8 * i)) & 0xFF;
            hash_ *= 0x100000001B3ull;
        }
    }
    void text(std::string_view data) noexcept {
        number(data.size());
        bytes(data);
    }
    std::uint64_t value() const noexcept { return hash_; }

private:
    std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

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
