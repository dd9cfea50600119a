// Reading the central directory of a zip of stored records (APPNOTE.TXT 4.3), ZIP64 included,
// with every offset and size checked against the file before it is used.
#include "encoder/stored_zip.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "util/error.h"

namespace linkscope::encoder {
namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::size_t kEndSize = 22, kLocatorSize = 20, kZip64EndSize = 56, kCentralSize = 46, kLocalSize = 30;
/// A central directory above this is not one torch writes (a few hundred bytes per record).
constexpr std::uint64_t kMaxDirectoryBytes = 256ull << 20;

std::uint64_t little(std::span<const std::byte> bytes, std::size_t at, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t(std::to_integer<unsigned>(bytes[at + i])) << (8 * i);
    return value;
}

std::string shownName(std::string_view name) {
    std::string shown;
    for (const char c : name.substr(0, 100)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return "\"" + shown + (name.size() > 100 ? "...\"" : "\"");
}

}  // namespace

void StoredZip::readAt(std::uint64_t offset, std::span<std::byte> into) const {
    if (offset > input_.size() || into.size() > input_.size() - offset)
        throw ParseError(name(), 0,
                         "a read of " + std::to_string(into.size()) + " bytes at byte " + std::to_string(offset) +
                             " goes past the end of the file (" + std::to_string(input_.size()) + " bytes)");
    std::size_t done = 0;
    while (done < into.size()) {
        const ssize_t got =
            ::pread(input_.descriptor(), into.data() + done, into.size() - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            throw ParseError(name(), 0,
                             "cannot read bytes " + std::to_string(offset + done) +
                                 (got < 0 ? std::string(": ") + std::strerror(errno)
                                          : std::string(": the file ended early (did it change while being read?)")));
        done += static_cast<std::size_t>(got);
    }
}

const StoredZip::Entry* StoredZip::find(std::string_view wanted) const noexcept {
    const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == wanted; });
    return it == entries_.end() ? nullptr : &*it;
}

void StoredZip::read(const Entry& entry, std::span<std::byte> into) const {
    if (!entry.stored)
        throw ParseError(name(), 0,
                         "zip entry " + shownName(entry.name) +
                             " is compressed; torch.save stores every record uncompressed, so this archive was "
                             "rewritten by another tool (save it again with torch.save)");
    if (into.size() != entry.size)
        throw ParseError(name(), 0, "zip entry " + shownName(entry.name) + ": size mismatch");
    readAt(entry.dataOffset, into);
}

StoredZip StoredZip::open(const std::filesystem::path& file) {
    StoredZip zip(InputFile::open(file, "the checkpoint"));
    const std::string& fileName = zip.name();
    const std::uint64_t fileSize = zip.fileSize();
    auto fail = [&](const std::string& message) { throw ParseError(fileName, 0, "zip archive: " + message); };
    if (fileSize < kEndSize)
        fail("the file of " + std::to_string(fileSize) + " bytes is too short to be a zip archive");

    // The end record sits in the last 22 + 65535 (its comment) bytes; the last signature whose
    // comment length reaches exactly to the end of the file is it.
    const std::uint64_t tailSize = std::min<std::uint64_t>(fileSize, kEndSize + 0xFFFF);
    std::vector<std::byte> tail(static_cast<std::size_t>(tailSize));
    zip.readAt(fileSize - tailSize, tail);
    std::optional<std::size_t> endAt;
    for (std::size_t at = tail.size() - kEndSize + 1; at-- > 0;) {
        if (little(tail, at, 4) == kEndSignature && at + kEndSize + little(tail, at + 20, 2) == tail.size()) {
            endAt = at;
            break;
        }
    }
    if (!endAt) fail("no end-of-central-directory record (the file is truncated or not a zip archive)");
    const std::uint64_t endOffset = fileSize - tailSize + *endAt;
    const auto end = std::span<const std::byte>(tail).subspan(*endAt);
    std::uint64_t diskNumber = little(end, 4, 2), directoryDisk = little(end, 6, 2);
    std::uint64_t diskEntries = little(end, 8, 2), totalEntries = little(end, 10, 2);
    std::uint64_t directorySize = little(end, 12, 4), directoryOffset = little(end, 16, 4);
    std::uint64_t directoryLimit = endOffset;  // the directory ends before the record(s) after it

    // torch's writer (miniz) adds the ZIP64 records to every archive, small ones too; they are
    // required only when a field of the classic record is saturated.
    const bool saturated =
        diskEntries == 0xFFFF || totalEntries == 0xFFFF || directorySize == 0xFFFFFFFF || directoryOffset == 0xFFFFFFFF;
    std::array<std::byte, kLocatorSize> locator{};
    if (endOffset >= kLocatorSize) zip.readAt(endOffset - kLocatorSize, locator);
    const bool zip64 = endOffset >= kLocatorSize && little(locator, 0, 4) == kZip64LocatorSignature;
    if (saturated && !zip64) fail("a ZIP64 archive without its end-of-directory locator");
    if (zip64) {
        const std::uint64_t recordOffset = little(locator, 8, 8);
        if (recordOffset > endOffset - kLocatorSize || endOffset - kLocatorSize - recordOffset < kZip64EndSize)
            fail("the ZIP64 end record's offset " + std::to_string(recordOffset) + " is outside the file");
        std::array<std::byte, kZip64EndSize> record{};
        zip.readAt(recordOffset, record);
        if (little(record, 0, 4) != kZip64EndSignature) fail("no ZIP64 end record where the locator points");
        diskNumber = little(record, 16, 4);
        directoryDisk = little(record, 20, 4);
        diskEntries = little(record, 24, 8);
        totalEntries = little(record, 32, 8);
        directorySize = little(record, 40, 8);
        directoryOffset = little(record, 48, 8);
        directoryLimit = recordOffset;
    }
    if (diskNumber != 0 || directoryDisk != 0 || diskEntries != totalEntries)
        fail("a multi-disk (split) archive, which torch never writes");
    if (directoryOffset > directoryLimit || directorySize != directoryLimit - directoryOffset)
        fail("the central directory (" + std::to_string(directorySize) + " bytes at byte " +
             std::to_string(directoryOffset) + ") does not end where its end record begins (byte " +
             std::to_string(directoryLimit) + ")");
    if (directorySize > kMaxDirectoryBytes) fail("a central directory of " + std::to_string(directorySize) + " bytes");
    if (totalEntries > directorySize / kCentralSize)
        fail(std::to_string(totalEntries) + " entries cannot fit a central directory of " +
             std::to_string(directorySize) + " bytes");

    std::vector<std::byte> directory(static_cast<std::size_t>(directorySize));
    zip.readAt(directoryOffset, directory);
    std::map<std::string, std::size_t, std::less<>> names;
    std::size_t at = 0;
    for (std::uint64_t index = 0; index < totalEntries; ++index) {
        if (directory.size() - at < kCentralSize || little(directory, at, 4) != kCentralSignature)
            fail("central directory entry " + std::to_string(index) + " is damaged");
        const std::uint64_t flags = little(directory, at + 8, 2), method = little(directory, at + 10, 2);
        std::uint64_t compressed = little(directory, at + 20, 4), size = little(directory, at + 24, 4);
        const std::size_t nameLength = little(directory, at + 28, 2), extraLength = little(directory, at + 30, 2),
                          commentLength = little(directory, at + 32, 2);
        const std::uint64_t disk = little(directory, at + 34, 2);
        std::uint64_t headerOffset = little(directory, at + 42, 4);
        if (directory.size() - at - kCentralSize < nameLength + extraLength + commentLength)
            fail("central directory entry " + std::to_string(index) + " runs past the directory");
        Entry entry;
        entry.name.assign(reinterpret_cast<const char*>(directory.data() + at + kCentralSize), nameLength);
        // ZIP64 extra field: the 64-bit values of the fields that hold 0xFFFFFFFF, in this order.
        const auto extra = std::span<const std::byte>(directory).subspan(at + kCentralSize + nameLength, extraLength);
        for (std::size_t e = 0; e + 4 <= extra.size();) {
            const std::uint64_t id = little(extra, e, 2), length = little(extra, e + 2, 2);
            if (length > extra.size() - e - 4) fail("entry " + shownName(entry.name) + " has a damaged extra field");
            if (id == 0x0001) {
                std::size_t field = e + 4;
                auto take = [&](std::uint64_t& value) {
                    if (value != 0xFFFFFFFF) return;
                    if (field + 8 > e + 4 + length) fail("entry " + shownName(entry.name) + " has a short ZIP64 field");
                    value = little(extra, field, 8);
                    field += 8;
                };
                take(size);
                take(compressed);
                take(headerOffset);
            }
            e += 4 + static_cast<std::size_t>(length);
        }
        at += kCentralSize + nameLength + extraLength + commentLength;

        if (disk != 0 && disk != 0xFFFF) fail("entry " + shownName(entry.name) + " is on another disk");
        if (flags & 1) fail("entry " + shownName(entry.name) + " is encrypted");
        entry.stored = method == 0;
        if (entry.stored && compressed != size)
            fail("stored entry " + shownName(entry.name) + " declares " + std::to_string(compressed) +
                 " bytes stored but " + std::to_string(size) + " uncompressed");
        entry.size = compressed;
        entry.headerOffset = headerOffset;
        if (!names.emplace(entry.name, zip.entries_.size()).second)
            fail("the name " + shownName(entry.name) + " is given twice");
        zip.entries_.push_back(std::move(entry));
    }

    // Each local header is checked against its directory entry; data must lie before the
    // directory and no two entries may share bytes (overlapping records would let one byte
    // range stand for two tensors' storages).
    for (Entry& entry : zip.entries_) {
        if (entry.headerOffset > directoryOffset || directoryOffset - entry.headerOffset < kLocalSize)
            fail("entry " + shownName(entry.name) + "'s local header (byte " + std::to_string(entry.headerOffset) +
                 ") lies outside the records");
        std::array<std::byte, kLocalSize> local{};
        zip.readAt(entry.headerOffset, local);
        if (little(local, 0, 4) != kLocalSignature)
            fail("entry " + shownName(entry.name) + " has no local header where the directory points");
        const std::uint64_t nameLength = little(local, 26, 2), extraLength = little(local, 28, 2);
        entry.dataOffset = entry.headerOffset + kLocalSize + nameLength + extraLength;
        if (nameLength != entry.name.size() || entry.dataOffset > directoryOffset ||
            entry.size > directoryOffset - entry.dataOffset)
            fail("entry " + shownName(entry.name) + "'s data (" + std::to_string(entry.size) +
                 " bytes) lies past the "
                 "records (the archive is truncated or damaged)");
        std::string localName(nameLength, '\0');
        zip.readAt(entry.headerOffset + kLocalSize, std::as_writable_bytes(std::span(localName)));
        if (localName != entry.name)
            fail("entry " + shownName(entry.name) + "'s local header names " + shownName(localName));
    }
    std::vector<const Entry*> byOffset;
    for (const Entry& entry : zip.entries_) byOffset.push_back(&entry);
    std::sort(byOffset.begin(), byOffset.end(),
              [](const Entry* a, const Entry* b) { return a->headerOffset < b->headerOffset; });
    for (std::size_t i = 1; i < byOffset.size(); ++i)
        if (byOffset[i]->headerOffset < byOffset[i - 1]->dataOffset + byOffset[i - 1]->size)
            fail("entries " + shownName(byOffset[i - 1]->name) + " and " + shownName(byOffset[i]->name) + " overlap");
    return zip;
}

}  // namespace linkscope::encoder
