#include "util/checksummed_writer.h"

#include <zlib.h>

namespace linkscope {

ChecksummedWriter::ChecksummedWriter(std::ostream& out)
    : out_(&out), checksum_(static_cast<std::uint32_t>(crc32_z(0, nullptr, 0))) {}

void ChecksummedWriter::bytes(const void* data, std::size_t size) {
    if (size == 0) return;  // crc32_z(crc, NULL, 0) would restart the checksum
    checksum_ = static_cast<std::uint32_t>(crc32_z(checksum_, static_cast<const Bytef*>(data), size));
    out_->write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    written_ += size;
}

}  // namespace linkscope
