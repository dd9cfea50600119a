#pragma once
// Hand-built torch.save files for the hostile tests and the fuzz seeds: a pickle written opcode
// by opcode, a stored zip archive, and the legacy format's sequence, so that a test can make
// exactly the damaged or hostile file it means (torch itself never writes one).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace linkscope::test {

/// A protocol-2 pickle built opcode by opcode.
class PickleBuilder {
public:
    PickleBuilder() { bytes_ += "\x80\x02"; }
    PickleBuilder& raw(std::string_view bytes) {
        bytes_ += bytes;
        return *this;
    }
    PickleBuilder& global(std::string_view module, std::string_view name) {
        bytes_ += 'c';
        bytes_ += module;
        bytes_ += '\n';
        bytes_ += name;
        bytes_ += '\n';
        return *this;
    }
    PickleBuilder& string(std::string_view text) {
        bytes_ += 'X';
        appendLittle(text.size(), 4);
        bytes_ += text;
        return *this;
    }
    PickleBuilder& integer(std::int64_t value) {
        if (value >= 0 && value < 256) {
            bytes_ += 'K';
            appendLittle(static_cast<std::uint64_t>(value), 1);
        } else {
            bytes_ += "\x8a\x08";
            appendLittle(static_cast<std::uint64_t>(value), 8);
        }
        return *this;
    }
    PickleBuilder& mark() { return raw("("); }
    PickleBuilder& tuple() { return raw("t"); }
    PickleBuilder& emptyTuple() { return raw(")"); }
    PickleBuilder& reduce() { return raw("R"); }
    PickleBuilder& none() { return raw("N"); }
    PickleBuilder& boolean(bool value) { return raw(value ? "\x88" : "\x89"); }
    PickleBuilder& stop() { return raw("."); }
    /// An int tuple (sizes, strides).
    PickleBuilder& ints(const std::vector<std::int64_t>& values) {
        mark();
        for (const auto v : values) integer(v);
        return tuple();
    }
    /// _rebuild_tensor_v2(persistent storage, offset, sizes, strides, False, OrderedDict()).
    PickleBuilder& tensor(std::string_view storageClass, std::string_view key, std::int64_t numel, std::int64_t offset,
                          const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                          bool legacyView = false) {
        global("torch._utils", "_rebuild_tensor_v2").mark();
        mark().string("storage").global("torch", storageClass).string(key).string("cpu").integer(numel);
        if (legacyView) none();
        tuple().raw("Q");
        integer(offset).ints(sizes).ints(strides).boolean(false);
        global("collections", "OrderedDict").emptyTuple().reduce();
        return tuple().reduce();
    }
    /// OrderedDict() then MARK; the caller adds key, value pairs and calls endDict().
    PickleBuilder& beginDict() { return global("collections", "OrderedDict").emptyTuple().reduce().mark(); }
    PickleBuilder& endDict() { return raw("u"); }
    const std::string& bytes() const noexcept { return bytes_; }

private:
    void appendLittle(std::uint64_t value, int width) {
        for (int i = 0; i < width; ++i) bytes_ += static_cast<char>((value >> (8 * i)) & 0xff);
    }
    std::string bytes_;
};

/// A zip archive of stored records, laid out as torch.save writes one.
inline std::string storedZip(const std::vector<std::pair<std::string, std::string>>& records) {
    auto little = [](std::string& out, std::uint64_t value, int width) {
        for (int i = 0; i < width; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
    };
    std::string archive, directory;
    for (const auto& [name, data] : records) {
        const std::uint64_t offset = archive.size();
        little(archive, 0x04034b50, 4);
        little(archive, 20, 2);
        little(archive, 0, 2);  // flags
        little(archive, 0, 2);  // stored
        little(archive, 0, 4);  // time, date
        little(archive, 0, 4);  // CRC-32 (not checked by the reader)
        little(archive, data.size(), 4);
        little(archive, data.size(), 4);
        little(archive, name.size(), 2);
        little(archive, 0, 2);
        archive += name;
        archive += data;
        little(directory, 0x02014b50, 4);
        little(directory, 20, 2);
        little(directory, 20, 2);
        little(directory, 0, 2);
        little(directory, 0, 2);
        little(directory, 0, 4);
        little(directory, 0, 4);
        little(directory, data.size(), 4);
        little(directory, data.size(), 4);
        little(directory, name.size(), 2);
        little(directory, 0, 2);
        little(directory, 0, 2);
        little(directory, 0, 2);
        little(directory, 0, 2);
        little(directory, 0, 4);
        little(directory, offset, 4);
        directory += name;
    }
    const std::uint64_t directoryOffset = archive.size();
    archive += directory;
    little(archive, 0x06054b50, 4);
    little(archive, 0, 4);
    little(archive, records.size(), 2);
    little(archive, records.size(), 2);
    little(archive, directory.size(), 4);
    little(archive, directoryOffset, 4);
    little(archive, 0, 2);
    return archive;
}

/// The legacy format: magic, protocol 1001, system info, `object`, the keys list, then each
/// storage as an 8-byte element count and its bytes.
inline std::string legacyTorchFile(const std::string& object,
                                   const std::vector<std::tuple<std::string, std::uint64_t, std::string>>& storages) {
    std::string file = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.";
    file += PickleBuilder().raw("M\xe9\x03").stop().bytes();
    file += PickleBuilder()
                .raw("}")
                .mark()
                .string("protocol_version")
                .raw("M\xe9\x03")
                .string("little_endian")
                .boolean(true)
                .raw("u")
                .stop()
                .bytes();
    file += object;
    PickleBuilder keys;
    keys.raw("]").mark();
    for (const auto& storage : storages) keys.string(std::get<0>(storage));
    file += keys.raw("e").stop().bytes();
    for (const auto& [key, numel, bytes] : storages) {
        for (int i = 0; i < 8; ++i) file += static_cast<char>((numel >> (8 * i)) & 0xff);
        file += bytes;
    }
    return file;
}

/// A float's 4 little-endian bytes, repeated for each value.
inline std::string floatBytes(const std::vector<float>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

}  // namespace linkscope::test
