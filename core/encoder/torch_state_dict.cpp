// From a state dict pickle's declarations to tensors: the root value, the storages' agreement,
// each view checked inside its storage, and the gathering of views that are not contiguous.
#include "encoder/torch_state_dict.h"

#include <cstring>
#include <limits>
#include <set>

#include "util/error.h"

namespace linkscope::encoder::detail {
namespace {

using pickle::Value;

std::string shownText(std::string_view text) {
    std::string shown;
    for (const char c : text.substr(0, 120)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return "\"" + shown + (text.size() > 120 ? "...\"" : "\"");
}

std::string tensorLabel(const DeclaredTensor& tensor) {
    return tensor.name.empty() ? std::string("the tensor") : "tensor " + shownText(tensor.name);
}

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

/// a * b, or nullopt on overflow.
std::optional<std::uint64_t> times(std::uint64_t a, std::uint64_t b) {
    if (b != 0 && a > kMax / b) return std::nullopt;
    return a * b;
}

bool isContiguous(const pickle::TensorUse& use) {
    std::uint64_t expected = 1;
    for (std::size_t i = use.sizes.size(); i-- > 0;) {
        if (use.sizes[i] != 1 && static_cast<std::uint64_t>(use.strides[i]) != expected) return false;
        expected *= static_cast<std::uint64_t>(use.sizes[i]);
    }
    return true;
}

/// Copies the elements of a strided view, in row-major order, into `out`.
void gather(std::span<const std::byte> storage, std::size_t elementSize, std::uint64_t offset,
            const pickle::TensorUse& use, std::byte* out) {
    const std::size_t rank = use.sizes.size();
    std::vector<std::int64_t> index(rank, 0);
    for (;;) {
        std::uint64_t at = offset;
        for (std::size_t d = 0; d < rank; ++d)
            at += static_cast<std::uint64_t>(index[d]) * static_cast<std::uint64_t>(use.strides[d]);
        std::memcpy(out, storage.data() + at * elementSize, elementSize);
        out += elementSize;
        std::size_t d = rank;
        while (d > 0) {
            --d;
            if (++index[d] < use.sizes[d]) break;
            index[d] = 0;
            if (d == 0) return;
        }
        if (rank == 0) return;
    }
}

}  // namespace

std::vector<DeclaredTensor> declaredTensors(const pickle::Machine& machine, pickle::ValueId root,
                                            const std::string& file) {
    const Value& value = machine.at(root);
    if (value.kind == Value::Kind::Tensor) return {DeclaredTensor{"", static_cast<std::size_t>(value.integer)}};
    if (value.kind != Value::Kind::Dict)
        throw ParseError(file, 0,
                         "holds a " + std::string(pickle::kindName(value.kind)) +
                             ", not a state dict (a dict of tensors) or a tensor");
    std::vector<DeclaredTensor> tensors;
    std::set<std::string, std::less<>> names;
    for (std::size_t i = 0; i + 1 < value.items.size(); i += 2) {
        const Value& key = machine.at(value.items[i]);
        const Value& item = machine.at(value.items[i + 1]);
        if (key.kind != Value::Kind::String)
            throw ParseError(
                file, 0,
                "the state dict has a key that is a " + std::string(pickle::kindName(key.kind)) + ", not a str");
        if (item.kind != Value::Kind::Tensor)
            throw ParseError(file, 0,
                             "state dict entry " + shownText(key.text) + " is a " +
                                 std::string(pickle::kindName(item.kind)) + ", not a tensor");
        if (!names.insert(key.text).second)
            throw ParseError(file, 0, "state dict entry " + shownText(key.text) + " is given twice");
        tensors.push_back({key.text, static_cast<std::size_t>(item.integer)});
    }
    return tensors;
}

std::map<std::string, pickle::StorageUse> storagesOf(const pickle::Machine& machine,
                                                     const std::vector<DeclaredTensor>& tensors,
                                                     const std::string& file) {
    std::map<std::string, pickle::StorageUse> storages;
    for (const auto& tensor : tensors) {
        const auto& use = machine.storages().at(machine.tensors().at(tensor.use).storage);
        const auto [it, added] = storages.emplace(use.key, use);
        if (!added && (it->second.dtype != use.dtype || it->second.numel != use.numel))
            throw ParseError(file, 0,
                             "storage " + shownText(use.key) + " is declared twice, as " +
                                 std::to_string(it->second.numel) + " " + std::string(dtypeName(it->second.dtype)) +
                                 " and as " + std::to_string(use.numel) + " " + std::string(dtypeName(use.dtype)) +
                                 " elements");
    }
    return storages;
}

std::uint64_t storageBytes(const pickle::StorageUse& storage, const std::string& file) {
    const auto bytes = times(storage.numel, dtypeSize(storage.dtype));
    if (!bytes)
        throw ParseError(file, 0,
                         "storage " + shownText(storage.key) + " declares " + std::to_string(storage.numel) +
                             " elements, more than 64 bits of bytes");
    return *bytes;
}

TorchCheckpointFile::Parts assembleTensors(const pickle::Machine& machine, const std::vector<DeclaredTensor>& tensors,
                                           std::map<std::string, std::vector<std::byte>> storages,
                                           const std::string& file) {
    TorchCheckpointFile::Parts parts;
    std::map<std::string, std::size_t, std::less<>> bufferOf;
    std::uint64_t storageTotal = 0;
    for (auto& [key, bytes] : storages) {
        storageTotal += bytes.size();
        bufferOf.emplace(key, parts.buffers.size());
        parts.buffers.push_back(std::move(bytes));
    }
    // Gathered views are the only allocation a pickle's numbers decide beyond the storages;
    // a checkpoint of weights gathers few (a transposed or sliced parameter), never many times
    // its storages.
    const std::uint64_t gatherLimit = storageTotal * 4;
    std::uint64_t gathered = 0;

    for (const auto& declared : tensors) {
        const pickle::TensorUse& use = machine.tensors().at(declared.use);
        const pickle::StorageUse& storage = machine.storages().at(use.storage);
        const std::size_t elementSize = dtypeSize(storage.dtype);
        const auto buffer = bufferOf.find(storage.key);
        if (buffer == bufferOf.end()) throw Error(file + ": storage " + shownText(storage.key) + " was not read");
        const std::span<const std::byte> whole = parts.buffers[buffer->second];
        auto fail = [&](const std::string& message) {
            throw ParseError(file, 0, tensorLabel(declared) + ": " + message);
        };

        // The elements this view reaches: offset + sum((size - 1) * stride) must lie inside the
        // storage (or its legacy view), computed without overflow.
        std::uint64_t count = 1;
        bool empty = false;
        for (const auto size : use.sizes) {
            if (size == 0) empty = true;
            const auto product = times(count, static_cast<std::uint64_t>(size));
            if (!product) fail("its sizes overflow 64 bits");
            count = *product;
        }
        if (count > storage.viewNumel)
            fail("has " + std::to_string(count) + " elements but its storage " + shownText(storage.key) + " holds " +
                 std::to_string(storage.viewNumel) +
                 " (an expanded view, which a checkpoint of weights does not hold)");
        std::uint64_t last = use.offset;
        if (!empty) {
            for (std::size_t d = 0; d < use.sizes.size(); ++d) {
                const auto step =
                    times(static_cast<std::uint64_t>(use.sizes[d] - 1), static_cast<std::uint64_t>(use.strides[d]));
                if (!step || *step > kMax - last) fail("its strides overflow 64 bits");
                last += *step;
            }
            if (last >= storage.viewNumel)
                fail("its view (offset " + std::to_string(use.offset) + ") reaches element " + std::to_string(last) +
                     " of storage " + shownText(storage.key) + ", which holds " + std::to_string(storage.viewNumel));
        } else if (use.offset > storage.viewNumel) {
            fail("its offset " + std::to_string(use.offset) + " lies past storage " + shownText(storage.key));
        }

        TorchTensor tensor;
        tensor.name = declared.name;
        tensor.dtype = storage.dtype;
        tensor.shape = use.sizes;
        const std::uint64_t first = storage.viewBegin + use.offset;  // in elements of the whole storage
        const std::uint64_t byteCount = count * elementSize;         // count <= viewNumel: no overflow
        if (empty) {
            tensor.bytes = {};
        } else if (isContiguous(use)) {
            tensor.bytes =
                whole.subspan(static_cast<std::size_t>(first * elementSize), static_cast<std::size_t>(byteCount));
        } else {
            gathered += byteCount;
            if (gathered > gatherLimit)
                fail("its strided view brings the copies of views to " + std::to_string(gathered) +
                     " bytes, more than four times the storages' " + std::to_string(storageTotal));
            std::vector<std::byte> copy(static_cast<std::size_t>(byteCount));
            gather(whole, elementSize, first, use, copy.data());
            tensor.bytes = copy;
            parts.buffers.push_back(std::move(copy));  // the vector's data does not move with it
        }
        parts.tensors.push_back(std::move(tensor));
    }
    return parts;
}

}  // namespace linkscope::encoder::detail
