#pragma once
// FNV-1a, 64 bits: a published, fixed function, so that a fingerprint written by one build is
// checked the same way by every later one (its values are stored in index files and manifests).
#include <cstdint>
#include <string_view>

namespace linkscope {

class Fnv1a64 {
public:
    void bytes(std::string_view data) noexcept {
        for (const char c : data) {
            hash_ ^= static_cast<unsigned char>(c);
            hash_ *= 0x100000001B3ull;
        }
    }
    /// The value's 8 bytes, least significant first.
    void number(std::uint64_t value) noexcept {
        for (int i = 0; i < 8; ++i) {
            hash_ ^= (value >> (8 * i)) & 0xFF;
            hash_ *= 0x100000001B3ull;
        }
    }
    /// The length first, so that ("ab", "c") and ("a", "bc") hash differently.
    void text(std::string_view data) noexcept {
        number(data.size());
        bytes(data);
    }
    std::uint64_t value() const noexcept { return hash_; }

private:
    std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

}  // namespace linkscope
