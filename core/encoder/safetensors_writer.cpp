// Writing a safetensors file the way the reference library does: "__metadata__" first, tensors
// in name order with contiguous offsets, the header padded with spaces so that the data section
// starts 8-byte aligned.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include "encoder/safetensors.h"
#include "encoder/safetensors_layout.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

// ordered_json keeps insertion order, so "__metadata__" comes first as in files the reference
// writes (and as a human reading the header expects).
using OrderedJson = nlohmann::ordered_json;

}  // namespace

void SafetensorsWriter::add(std::string name, DType dtype, std::vector<std::int64_t> shape,
                            std::span<const std::byte> bytes) {
    if (name == "__metadata__") throw Error("safetensors: \"__metadata__\" is reserved and cannot name a tensor");
    if (std::any_of(tensors_.begin(), tensors_.end(), [&](const Pending& p) { return p.name == name; }))
        throw Error("safetensors: tensor \"" + name + "\" added twice");
    if (dtypeSize(dtype) == 0) throw Error("safetensors: tensor \"" + name + "\" has an invalid dtype");
    const auto expected = detail::checkedByteCount(dtype, shape);
    if (!expected) throw Error("safetensors: tensor \"" + name + "\" has a negative or overflowing shape");
    if (*expected != bytes.size())
        throw Error("safetensors: tensor \"" + name + "\" has " + std::to_string(bytes.size()) +
                    " bytes but its shape and " + std::string(dtypeName(dtype)) + " need " + std::to_string(*expected));
    tensors_.push_back(Pending{std::move(name), dtype, std::move(shape), {bytes.begin(), bytes.end()}});
}

void SafetensorsWriter::setMetadata(std::string key, std::string value) {
    // transformers refuses a checkpoint whose format is not "pt"; letting a caller change it would
    // write a file the reader of record cannot load.
    if (key == "format" && value != "pt")
        throw Error("safetensors: metadata \"format\" must stay \"pt\" (transformers refuses anything else)");
    metadata_[std::move(key)] = std::move(value);
}

void SafetensorsWriter::write(const std::filesystem::path& file) const {
    std::vector<const Pending*> ordered;
    ordered.reserve(tensors_.size());
    for (const Pending& tensor : tensors_) ordered.push_back(&tensor);
    std::sort(ordered.begin(), ordered.end(), [](const Pending* a, const Pending* b) { return a->name < b->name; });

    OrderedJson header = OrderedJson::object();
    OrderedJson metadata = OrderedJson::object();
    metadata["format"] = "pt";
    for (const auto& [key, value] : metadata_) metadata[key] = value;
    header["__metadata__"] = std::move(metadata);
    std::uint64_t offset = 0;
    for (const Pending* tensor : ordered) {
        const std::uint64_t end = offset + tensor->bytes.size();
        header[tensor->name] = {{"dtype", std::string(dtypeName(tensor->dtype))},
                                {"shape", tensor->shape},
                                {"data_offsets", {offset, end}}};
        offset = end;
    }

    std::string headerText;
    try {
        headerText = header.dump();
    } catch (const nlohmann::json::exception& e) {
        // dump() throws for a name or metadata string that is not UTF-8.
        throw Error(file.string() + ": cannot write safetensors header: " + e.what());
    }
    headerText.append((8 - headerText.size() % 8) % 8, ' ');
    if (headerText.size() > detail::kMaxHeaderBytes)
        throw Error(file.string() + ": safetensors header of " + std::to_string(headerText.size()) +
                    " bytes is above the limit readers accept");

    AtomicFileWriter writer(file);
    std::ostream& out = writer.stream();
    std::array<char, 8> length{};
    const auto headerLength = static_cast<std::uint64_t>(headerText.size());
    for (std::size_t i = 0; i < length.size(); ++i) length[i] = static_cast<char>((headerLength >> (8 * i)) & 0xff);
    out.write(length.data(), static_cast<std::streamsize>(length.size()));
    out.write(headerText.data(), static_cast<std::streamsize>(headerText.size()));
    for (const Pending* tensor : ordered)
        out.write(reinterpret_cast<const char*>(tensor->bytes.data()),
                  static_cast<std::streamsize>(tensor->bytes.size()));
    writer.commit();
}

}  // namespace linkscope::encoder
