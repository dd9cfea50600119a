// Reading a safetensors file: everything the header claims is checked against the file before
// the data section is allocated, so a damaged or hostile file costs an error message, never a
// huge allocation or a read outside the buffer.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <set>
#include <tuple>

#include "encoder/safetensors.h"
#include "encoder/safetensors_layout.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_file.h"

namespace linkscope::encoder {
namespace {

using Json = nlohmann::json;

struct DTypeSpec {
    DType dtype;
    std::string_view name;
    std::size_t size;
};
constexpr std::array kDTypes{
    DTypeSpec{DType::F64, "F64", 8},   DTypeSpec{DType::F32, "F32", 4}, DTypeSpec{DType::F16, "F16", 2},
    DTypeSpec{DType::BF16, "BF16", 2}, DTypeSpec{DType::I64, "I64", 8}, DTypeSpec{DType::I32, "I32", 4},
    DTypeSpec{DType::I16, "I16", 2},   DTypeSpec{DType::I8, "I8", 1},   DTypeSpec{DType::U8, "U8", 1},
    DTypeSpec{DType::Bool, "BOOL", 1},
};

const DTypeSpec* specOf(DType dtype) noexcept {
    const auto it = std::find_if(kDTypes.begin(), kDTypes.end(), [&](const DTypeSpec& s) { return s.dtype == dtype; });
    return it == kDTypes.end() ? nullptr : &*it;
}

/// `text` in quotes for a message, shortened: a hostile header may hold a name of megabytes.
std::string inQuotes(std::string_view text) {
    constexpr std::size_t kShown = 120;
    return "\"" + std::string(text.substr(0, kShown)) + (text.size() > kShown ? "...\"" : "\"");
}

/// A JSON value as text for a message, shortened like inQuotes() and never a recursive dump.
std::string brief(const Json& value) { return briefJson(value); }

std::string shapeText(std::span<const std::int64_t> shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (text.size() > 80) return text + ", ...]";  // a hostile header may list millions
        text += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return text + "]";
}

/// Reads a whole file's bytes into the caller's buffer; false when the stream came up short
/// (the file shrank while we read it).
bool readExactly(std::istream& in, void* into, std::uint64_t count) {
    in.read(static_cast<char*>(into), static_cast<std::streamsize>(count));
    return static_cast<std::uint64_t>(in.gcount()) == count;
}

/// Parses the header JSON. nlohmann keeps the last of two equal keys silently; a header naming a
/// tensor twice is ambiguous, so the parser callback tracks the keys of every open object and
/// the first repeated one is an error.
Json parseHeader(const std::string& text, const std::string& file) {
    std::vector<std::set<std::string, std::less<>>> openObjects;
    std::optional<std::string> duplicate;
    const Json::parser_callback_t callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
        checkJsonDepth(depth, file);
        switch (event) {
            case Json::parse_event_t::object_start:
                openObjects.emplace_back();
                break;
            case Json::parse_event_t::object_end:
                if (!openObjects.empty()) openObjects.pop_back();
                break;
            case Json::parse_event_t::key:
                if (!duplicate && !openObjects.empty() && !openObjects.back().insert(parsed.get<std::string>()).second)
                    duplicate = parsed.get<std::string>();
                break;
            default:
                break;
        }
        return true;
    };
    // The reference refuses a header that does not open with '{' before parsing it; an array or a
    // string there is not a damaged safetensors header but another kind of file.
    if (text.empty() || text.front() != '{')
        throw ParseError(file, 0, "the header is not a JSON object (it must start with '{')");
    Json root;
    try {
        root = Json::parse(text, callback);
    } catch (const Json::exception& e) {
        throw ParseError(file, 0, std::string("the header is not valid JSON: ") + e.what());
    }
    if (duplicate) throw ParseError(file, 0, "the header has the key " + inQuotes(*duplicate) + " twice");
    if (!root.is_object()) throw ParseError(file, 0, "the header is not a JSON object");
    return root;
}

std::map<std::string, std::string> parseMetadata(const Json& entry, const std::string& file) {
    if (!entry.is_object()) throw ParseError(file, 0, "\"__metadata__\" must be an object of strings");
    std::map<std::string, std::string> metadata;
    for (const auto& [key, value] : entry.items()) {
        if (!value.is_string())
            throw ParseError(
                file, 0,
                "\"__metadata__\" value of " + inQuotes(key) + " is a " + value.type_name() + ", not a string");
        metadata.emplace(key, value.get<std::string>());
    }
    return metadata;
}

/// A non-negative integer of the header (a dimension or an offset); nullopt for anything else.
std::optional<std::uint64_t> unsignedOf(const Json& value) {
    if (!value.is_number_unsigned()) return std::nullopt;  // negative, fractional, string, bool...
    return value.get<std::uint64_t>();
}

[[noreturn]] void failTensor(const std::string& file, const std::string& name, const std::string& message) {
    throw ParseError(file, 0, "tensor " + inQuotes(name) + ": " + message);
}

TensorInfo parseTensor(const std::string& name, const Json& entry, std::uint64_t dataSize, const std::string& file) {
    if (!entry.is_object()) failTensor(file, name, "the entry is not a JSON object");
    TensorInfo info;
    info.name = name;

    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string()) failTensor(file, name, "missing \"dtype\" string");
    const auto parsed = parseDType(dtype->get<std::string>());
    if (!parsed)
        failTensor(file, name,
                   "unknown dtype " + inQuotes(dtype->get<std::string>()) +
                       " (known: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
    info.dtype = *parsed;

    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) failTensor(file, name, "missing \"shape\" array");
    for (const Json& dimension : *shape) {
        const auto value = unsignedOf(dimension);
        if (!value)
            failTensor(file, name, "shape " + brief(*shape) + " has a dimension that is not a non-negative integer");
        if (*value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            failTensor(file, name, "shape " + brief(*shape) + " has a dimension too large");
        info.shape.push_back(static_cast<std::int64_t>(*value));
    }
    const auto byteCount = detail::checkedByteCount(info.dtype, info.shape);
    if (!byteCount) failTensor(file, name, "shape " + shapeText(info.shape) + " overflows 64 bits");

    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
        failTensor(file, name, "missing \"data_offsets\" [begin, end]");
    const auto begin = unsignedOf((*offsets)[0]), end = unsignedOf((*offsets)[1]);
    if (!begin || !end) failTensor(file, name, "data_offsets " + brief(*offsets) + " are not non-negative integers");
    if (*begin > *end) failTensor(file, name, "data_offsets " + brief(*offsets) + " are reversed (begin after end)");
    if (*end > dataSize)
        failTensor(
            file, name,
            "data_offsets " + brief(*offsets) + " end past the data section (" + std::to_string(dataSize) + " bytes)");
    if (*end - *begin != *byteCount)
        failTensor(file, name,
                   "data_offsets " + brief(*offsets) + " span " + std::to_string(*end - *begin) + " bytes but shape " +
                       shapeText(info.shape) + " of " + std::string(dtypeName(info.dtype)) + " needs " +
                       std::to_string(*byteCount));
    info.begin = *begin;
    info.end = *end;
    return info;
}

/// The tensors, sorted by offset, must tile the data section exactly: the reference refuses holes
/// (MetadataIncompleteBuffer) and so do we, since bytes that belong to no tensor are a sign of a
/// truncated or spliced file.
void checkLayout(const std::vector<TensorInfo>& tensors, std::uint64_t dataSize, const std::string& file) {
    std::uint64_t expected = 0;
    const TensorInfo* previous = nullptr;
    for (const TensorInfo& tensor : tensors) {
        if (tensor.begin < expected)
            throw ParseError(file, 0,
                             "tensor " + inQuotes(tensor.name) + " overlaps tensor " + inQuotes(previous->name) +
                                 " (begins at byte " + std::to_string(tensor.begin) + ", before " +
                                 std::to_string(expected) + ")");
        if (tensor.begin > expected)
            throw ParseError(file, 0,
                             "bytes " + std::to_string(expected) + " to " + std::to_string(tensor.begin) +
                                 " of the data section belong to no tensor (a hole before tensor " +
                                 inQuotes(tensor.name) + ")");
        expected = tensor.end;
        previous = &tensor;
    }
    if (expected != dataSize)
        throw ParseError(file, 0,
                         "the data section has " + std::to_string(dataSize - expected) +
                             " trailing bytes after the last tensor (tensors cover " + std::to_string(expected) +
                             " of " + std::to_string(dataSize) + " bytes)");
}

}  // namespace

namespace detail {
std::optional<std::uint64_t> checkedByteCount(DType dtype, std::span<const std::int64_t> shape) noexcept {
    constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t count = 1;
    for (const std::int64_t dimension : shape) {
        if (dimension < 0) return std::nullopt;
        const auto d = static_cast<std::uint64_t>(dimension);
        if (d != 0 && count > kMax / d) return std::nullopt;
        count *= d;
    }
    const std::uint64_t size = dtypeSize(dtype);
    if (size == 0 || count > kMax / size) return std::nullopt;
    return count * size;
}
}  // namespace detail

std::size_t dtypeSize(DType dtype) noexcept {
    const DTypeSpec* spec = specOf(dtype);
    return spec ? spec->size : 0;
}

std::string_view dtypeName(DType dtype) noexcept {
    const DTypeSpec* spec = specOf(dtype);
    return spec ? spec->name : std::string_view("?");
}

std::optional<DType> parseDType(std::string_view name) noexcept {
    for (const DTypeSpec& spec : kDTypes)
        if (spec.name == name) return spec.dtype;
    return std::nullopt;
}

std::uint64_t TensorInfo::elementCount() const noexcept {
    std::uint64_t count = 1;
    for (const std::int64_t dimension : shape) count *= static_cast<std::uint64_t>(dimension);
    return count;
}

SafetensorsFile SafetensorsFile::read(const std::filesystem::path& file) {
    const std::string name = file.string();
    InputFileStream in(file, "the safetensors file");
    in.seekg(0, std::ios::end);
    const std::streamoff end = in.tellg();
    in.seekg(0, std::ios::beg);
    if (end < 0 || !in) throw ParseError(name, 0, "cannot determine the file size");
    const auto fileSize = static_cast<std::uint64_t>(end);
    if (fileSize < 8)
        throw ParseError(name, 0,
                         "file of " + std::to_string(fileSize) +
                             " bytes is shorter than the 8-byte header length: not a safetensors file");

    std::array<unsigned char, 8> lengthBytes{};
    if (!readExactly(in, lengthBytes.data(), lengthBytes.size()))
        throw ParseError(name, 0, "cannot read the header length");
    std::uint64_t headerLength = 0;
    for (std::size_t i = 0; i < lengthBytes.size(); ++i) headerLength |= std::uint64_t{lengthBytes[i]} << (8 * i);
    if (headerLength > fileSize - 8)
        throw ParseError(name, 0,
                         "header length " + std::to_string(headerLength) + " goes beyond the end of the file (" +
                             std::to_string(fileSize) + " bytes)");
    if (headerLength > detail::kMaxHeaderBytes)
        throw ParseError(name, 0,
                         "header length " + std::to_string(headerLength) + " is above the limit of " +
                             std::to_string(detail::kMaxHeaderBytes) + " bytes");

    std::string headerText(static_cast<std::size_t>(headerLength), '\0');
    if (!readExactly(in, headerText.data(), headerLength))
        throw ParseError(name, 0, "file truncated inside the header");
    const Json header = parseHeader(headerText, name);
    const std::uint64_t dataSize = fileSize - 8 - headerLength;

    SafetensorsFile result;
    result.path_ = file;
    for (const auto& [key, entry] : header.items()) {
        if (key == "__metadata__")
            result.metadata_ = parseMetadata(entry, name);
        else
            result.tensors_.push_back(parseTensor(key, entry, dataSize, name));
    }
    // Zero-byte tensors share their offset with the next tensor; the name breaks the tie so the
    // order does not depend on the header's key order.
    std::sort(result.tensors_.begin(), result.tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) {
        return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
    });
    checkLayout(result.tensors_, dataSize, name);
    for (std::size_t i = 0; i < result.tensors_.size(); ++i) result.index_.emplace(result.tensors_[i].name, i);

    // Only now, with every offset known to lie inside the file, is the data section allocated.
    result.data_.resize(static_cast<std::size_t>(dataSize));
    if (!readExactly(in, result.data_.data(), dataSize))
        throw ParseError(name, 0, "file truncated inside the data section (did it change while being read?)");
    return result;
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const noexcept {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

std::span<const std::byte> SafetensorsFile::bytes(const TensorInfo& tensor) const {
    if (tensor.begin > tensor.end || tensor.end > data_.size())
        throw Error(path_.string() + ": tensor " + inQuotes(tensor.name) + " lies outside this file's data section");
    return std::span<const std::byte>(data_).subspan(static_cast<std::size_t>(tensor.begin),
                                                     static_cast<std::size_t>(tensor.end - tensor.begin));
}

}  // namespace linkscope::encoder
