#pragma once
// The zip container torch.save writes (torch >= 1.6): every record stored uncompressed, ZIP64
// when large. A small reader of our own rather than a zip library: torch never compresses, so
// "stored" is all there is to read, and owning the parse lets every offset and size of the
// central directory be checked against the file (in range, not overlapping another entry)
// before a byte is allocated for it, with records then read straight into their destination.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/input_file.h"

namespace linkscope::encoder {

class StoredZip {
public:
    struct Entry {
        std::string name;
        std::uint64_t headerOffset = 0;  ///< the local file header
        std::uint64_t dataOffset = 0;    ///< the first byte of the stored data
        std::uint64_t size = 0;          ///< stored = uncompressed size
        bool stored = true;              ///< compression method 0 (anything else is refused on read)
    };

    /// Reads and checks the end-of-central-directory record (ZIP64 too), the central directory
    /// and each entry's local header. ParseError naming the file for: no end record, a
    /// directory outside the file, a multi-disk or encrypted archive, an entry's data past the
    /// directory or overlapping another entry, a name given twice, or a local header that does
    /// not match the directory.
    static StoredZip open(const std::filesystem::path& file);

    const std::string& name() const noexcept { return input_.name(); }
    std::uint64_t fileSize() const noexcept { return input_.size(); }
    std::span<const Entry> entries() const noexcept { return entries_; }
    const Entry* find(std::string_view name) const noexcept;

    /// Reads the entry's bytes into `into`, whose size must equal entry.size. ParseError for a
    /// compressed entry or a file that came up short.
    void read(const Entry& entry, std::span<std::byte> into) const;

private:
    explicit StoredZip(InputFile input) : input_(std::move(input)) {}
    void readAt(std::uint64_t offset, std::span<std::byte> into) const;

    InputFile input_;
    std::vector<Entry> entries_;  // in central-directory order
};

}  // namespace linkscope::encoder
