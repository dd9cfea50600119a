#include "util/checksummed_writer.h"

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "util/error.h"

namespace linkscope {

ChecksummedWriter::ChecksummedWriter(std::ostream& out)
    : out_(&out), checksum_(static_cast<std::uint32_t>(crc32_z(0, nullptr, 0))) {}

void ChecksummedWriter::bytes(const void* data, std::size_t size) {
    if (size == 0) return;  // crc32_z(crc, NULL, 0) would restart the checksum
    checksum_ = static_cast<std::uint32_t>(crc32_z(checksum_, static_cast<const Bytef*>(data), size));
    out_->write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    written_ += size;
}

std::uint32_t streamChecksum(std::istream& in, std::uint64_t bytes, const std::string& file, std::string_view what) {
    uLong crc = crc32_z(0, nullptr, 0);
    std::vector<char> buffer(std::size_t{1} << 20);
    in.seekg(0);
    while (bytes > 0) {
        const auto chunk = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, buffer.size()));
        if (!in.read(buffer.data(), static_cast<std::streamsize>(chunk)))
            throw ParseError(file, 0, "cannot read the " + std::string(what) + " file");
        crc = crc32_z(crc, reinterpret_cast<const Bytef*>(buffer.data()), chunk);
        bytes -= chunk;
    }
    return static_cast<std::uint32_t>(crc);
}

}  // namespace linkscope
