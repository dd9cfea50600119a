// torch.save's legacy format (torch < 1.6, or _use_new_zipfile_serialization=False): five
// pickles one after the other (the magic number, the protocol version 1001, the system info,
// the object whose persistent ids declare storages, the sorted list of storage keys), then each
// listed storage as an 8-byte little-endian element count followed by its raw bytes.
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "encoder/torch_state_dict.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::encoder::detail {
namespace {

using pickle::Value;

/// 0x1950a86a20f9469cfc6c, as LONG1 writes it (little-endian).
constexpr std::array<unsigned char, 10> kMagic{0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr std::int64_t kProtocolVersion = 1001;

/// The file read in order through a buffer, for the pickles and the storages after them.
class FileInput final : public pickle::ByteInput {
public:
    explicit FileInput(InputFile file) : file_(std::move(file)) {}
    const std::string& name() const noexcept { return file_.name(); }

    void read(std::span<std::byte> into) override {
        if (into.size() > remaining())
            throw ParseError(name(), 0,
                             "the file ends at byte " + std::to_string(file_.size()) + ", inside data that needs " +
                                 std::to_string(into.size()) + " bytes from byte " + std::to_string(position_) +
                                 " (truncated?)");
        std::size_t done = 0;
        while (done < into.size()) {
            if (bufferAt_ == buffer_.size()) {
                // Large reads (storages) go straight to their destination.
                if (into.size() - done >= kBufferSize) {
                    done += readRaw(into.subspan(done));
                    continue;
                }
                refill();
            }
            const std::size_t take = std::min(buffer_.size() - bufferAt_, into.size() - done);
            std::memcpy(into.data() + done, buffer_.data() + bufferAt_, take);
            bufferAt_ += take;
            done += take;
            position_ += take;
        }
    }
    std::uint64_t remaining() const override { return file_.size() - position_; }
    std::uint64_t position() const override { return position_; }

private:
    static constexpr std::size_t kBufferSize = 1 << 16;

    std::size_t readRaw(std::span<std::byte> into) {
        const std::uint64_t fileAt = position_;
        std::size_t done = 0;
        while (done < into.size()) {
            const ssize_t got =
                ::pread(file_.descriptor(), into.data() + done, into.size() - done, static_cast<off_t>(fileAt + done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) throw ParseError(name(), 0, "the file ended early at byte " + std::to_string(fileAt + done));
            done += static_cast<std::size_t>(got);
        }
        position_ += done;
        return done;
    }
    void refill() {
        const std::size_t size = static_cast<std::size_t>(std::min<std::uint64_t>(kBufferSize, remaining()));
        buffer_.resize(size);
        const std::uint64_t keep = position_;
        readRaw(buffer_);
        position_ = keep;
        bufferAt_ = 0;
    }

    InputFile file_;
    std::vector<std::byte> buffer_;
    std::size_t bufferAt_ = 0;
    std::uint64_t position_ = 0;
};

const Value* dictEntry(const pickle::Machine& machine, const Value& dict, std::string_view key) {
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
        const Value& k = machine.at(dict.items[i]);
        if (k.kind == Value::Kind::String && k.text == key) return &machine.at(dict.items[i + 1]);
    }
    return nullptr;
}

}  // namespace

TorchCheckpointFile::Parts readLegacyCheckpoint(const std::filesystem::path& path) {
    FileInput input(InputFile::open(path, "the checkpoint"));
    const std::string file = input.name();

    pickle::Machine magicMachine(file + " (magic number)");
    const Value& magic = magicMachine.at(magicMachine.run(input));
    if (magic.kind != Value::Kind::BigInt ||
        magic.text != std::string(reinterpret_cast<const char*>(kMagic.data()), kMagic.size()))
        throw ParseError(file, 0, "a pickle, but not a torch.save file (its magic number is missing)");

    pickle::Machine versionMachine(file + " (protocol version)");
    const Value& version = versionMachine.at(versionMachine.run(input));
    if (version.kind != Value::Kind::Int || version.integer != kProtocolVersion)
        throw ParseError(file, 0, "torch serialization protocol other than 1001");

    pickle::Machine infoMachine(file + " (system info)");
    const Value& info = infoMachine.at(infoMachine.run(input));
    if (info.kind != Value::Kind::Dict) throw ParseError(file, 0, "the system info is not a dict");
    if (const Value* little = dictEntry(infoMachine, info, "little_endian");
        !little || little->kind != Value::Kind::Bool || little->integer != 1)
        throw ParseError(file, 0, "the checkpoint was saved big-endian (or does not say); only little-endian is read");

    pickle::Machine machine(file + " (state dict pickle)");
    const auto root = machine.run(input);
    const auto tensors = declaredTensors(machine, root, file);
    const auto declared = storagesOf(machine, tensors, file);

    pickle::Machine keysMachine(file + " (storage keys)");
    const Value& keys = keysMachine.at(keysMachine.run(input));
    if (keys.kind != Value::Kind::List) throw ParseError(file, 0, "the storage key list is not a list");

    std::map<std::string, std::vector<std::byte>> storages;
    for (const auto id : keys.items) {
        const Value& key = keysMachine.at(id);
        if (key.kind != Value::Kind::String) throw ParseError(file, 0, "a storage key is not a str");
        const auto found = declared.find(key.text);
        if (found == declared.end())
            throw ParseError(file, 0, "storage \"" + key.text + "\" is listed but no tensor declares it");
        if (storages.contains(key.text)) throw ParseError(file, 0, "storage \"" + key.text + "\" is listed twice");
        std::array<std::byte, 8> countBytes{};
        input.read(countBytes);
        std::uint64_t count = 0;
        for (std::size_t i = 0; i < 8; ++i) count |= std::uint64_t(std::to_integer<unsigned>(countBytes[i])) << (8 * i);
        if (count != found->second.numel)
            throw ParseError(file, 0,
                             "storage \"" + key.text + "\" is declared with " + std::to_string(found->second.numel) +
                                 " elements but stored with " + std::to_string(count));
        // The declared size must fit the bytes left before it is allocated.
        const std::uint64_t bytes = storageBytes(found->second, file);
        if (bytes > input.remaining())
            throw ParseError(file, 0,
                             "storage \"" + key.text + "\" needs " + std::to_string(bytes) + " bytes but only " +
                                 std::to_string(input.remaining()) + " remain (truncated?)");
        std::vector<std::byte> data(static_cast<std::size_t>(bytes));
        input.read(data);
        storages.emplace(key.text, std::move(data));
    }
    for (const auto& [key, storage] : declared)
        if (!storages.contains(key))
            throw ParseError(file, 0, "storage \"" + key + "\" is declared but its bytes are not in the file");
    auto parts = assembleTensors(machine, tensors, std::move(storages), file);
    parts.format = TorchCheckpointFile::Format::Legacy;
    return parts;
}

}  // namespace linkscope::encoder::detail
