#pragma once
// Writes bytes to a stream while counting them and keeping their CRC-32 (zlib's), which saved
// index files end with so that a damaged file is refused before any of it is used.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace linkscope {

class ChecksummedWriter {
public:
    explicit ChecksummedWriter(std::ostream& out);

    void bytes(const void* data, std::size_t size);
    /// One number, little-endian whatever the machine (the files' byte order).
    template <typename T>
    void scalar(T value) {
        static_assert(std::is_arithmetic_v<T>);
        unsigned char raw[sizeof(T)];
        std::memcpy(raw, &value, sizeof(T));
        if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
        bytes(raw, sizeof(T));
    }
    /// Numbers in a row, little-endian.
    template <typename T>
    void array(std::span<const T> values) {
        if constexpr (std::endian::native == std::endian::little)
            bytes(values.data(), values.size_bytes());
        else
            for (const T value : values) scalar(value);
    }
    template <typename T>
    void array(const std::vector<T>& values) {
        array(std::span<const T>(values));
    }
    void text(std::string_view value) { bytes(value.data(), value.size()); }
    std::uint32_t checksum() const noexcept { return checksum_; }
    std::uint64_t written() const noexcept { return written_; }
    bool good() const { return static_cast<bool>(*out_); }

private:
    std::ostream* out_;
    std::uint32_t checksum_;
    std::uint64_t written_ = 0;
};

/// A number stored little-endian at `data` (what ChecksummedWriter::scalar wrote).
template <typename T>
T readLittleEndian(const char* data) {
    static_assert(std::is_arithmetic_v<T>);
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, data, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(T));
    T value;
    std::memcpy(&value, raw, sizeof(T));
    return value;
}

/// The CRC-32 of the first `bytes` bytes of a file opened as `in` (read from its start in 1 MiB
/// chunks), to check a saved file before any of it is used. ParseError naming `file` when it
/// cannot be read that far ("cannot read the <what> file").
std::uint32_t streamChecksum(std::istream& in, std::uint64_t bytes, const std::string& file, std::string_view what);

}  // namespace linkscope
