#pragma once
// Writes bytes to a stream while counting them and keeping their CRC-32 (zlib's), which saved
// index files end with so that a damaged file is refused before any of it is used.
#include <cstddef>
#include <cstdint>
#include <ostream>

namespace linkscope {

class ChecksummedWriter {
public:
    explicit ChecksummedWriter(std::ostream& out);

    void bytes(const void* data, std::size_t size);
    std::uint32_t checksum() const noexcept { return checksum_; }
    std::uint64_t written() const noexcept { return written_; }
    bool good() const { return static_cast<bool>(*out_); }

private:
    std::ostream* out_;
    std::uint32_t checksum_;
    std::uint64_t written_ = 0;
};

}  // namespace linkscope
