// torch.save's zip format (torch >= 1.6): PREFIX/data.pkl holds the pickle, whose persistent
// ids name storages stored as PREFIX/data/KEY. PREFIX is the archive's one top-level folder
// ("archive" for a file object, the file's stem for a path).
#include <algorithm>

#include "encoder/stored_zip.h"
#include "encoder/torch_state_dict.h"
#include "util/error.h"

namespace linkscope::encoder::detail {

TorchCheckpointFile::Parts readZipCheckpoint(const std::filesystem::path& path) {
    const StoredZip zip = StoredZip::open(path);
    const std::string& file = zip.name();

    const StoredZip::Entry* pickleEntry = nullptr;
    for (const auto& entry : zip.entries()) {
        const auto slash = entry.name.find('/');
        if (slash == std::string::npos || entry.name.substr(slash) != "/data.pkl") continue;
        if (pickleEntry)
            throw ParseError(file, 0,
                             "the archive holds two pickles (\"" + pickleEntry->name + "\" and \"" + entry.name +
                                 "\"): which one is the checkpoint is ambiguous");
        pickleEntry = &entry;
    }
    if (!pickleEntry)
        throw ParseError(file, 0, "a zip archive without FOLDER/data.pkl: not a checkpoint torch.save wrote");
    const std::string prefix = pickleEntry->name.substr(0, pickleEntry->name.size() - std::string("data.pkl").size());

    if (const auto* order = zip.find(prefix + "byteorder")) {
        std::string text(static_cast<std::size_t>(std::min<std::uint64_t>(order->size, 16)), '\0');
        if (order->size <= 16) zip.read(*order, std::as_writable_bytes(std::span(text)));
        if (order->size > 16 || text != "little")
            throw ParseError(
                file, 0, "the checkpoint was saved big-endian (" + prefix + "byteorder); only little-endian is read");
    }

    if (pickleEntry->size > kMaxPickleBytes)
        throw ParseError(file, 0,
                         pickleEntry->name + " is " + std::to_string(pickleEntry->size) +
                             " bytes, above the limit of " + std::to_string(kMaxPickleBytes) + " for a state dict");
    std::vector<std::byte> pickleBytes(static_cast<std::size_t>(pickleEntry->size));
    zip.read(*pickleEntry, pickleBytes);

    const std::string pickleName = file + " (" + pickleEntry->name + ")";
    pickle::Machine machine(pickleName);
    pickle::SpanInput input(pickleBytes, pickleName);
    const auto root = machine.run(input);
    const auto tensors = declaredTensors(machine, root, file);

    std::map<std::string, std::vector<std::byte>> storages;
    for (const auto& [key, storage] : storagesOf(machine, tensors, file)) {
        const std::string record = prefix + "data/" + key;
        const auto* entry = zip.find(record);
        if (!entry) throw ParseError(file, 0, "storage \"" + key + "\" has no record " + record + " in the archive");
        // The record's size is known to lie inside the file; the pickle's count must match it
        // before a byte is allocated.
        const std::uint64_t bytes = storageBytes(storage, file);
        if (entry->size != bytes)
            throw ParseError(file, 0,
                             "storage \"" + key + "\" declares " + std::to_string(storage.numel) + " " +
                                 std::string(dtypeName(storage.dtype)) + " elements (" + std::to_string(bytes) +
                                 " bytes) but its record " + record + " holds " + std::to_string(entry->size));
        std::vector<std::byte> data(static_cast<std::size_t>(bytes));
        zip.read(*entry, data);
        storages.emplace(key, std::move(data));
    }
    auto parts = assembleTensors(machine, tensors, std::move(storages), file);
    parts.format = TorchCheckpointFile::Format::Zip;
    return parts;
}

}  // namespace linkscope::encoder::detail
