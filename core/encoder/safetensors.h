#pragma once
// The safetensors format (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON {"name": {"dtype", "shape", "data_offsets": [begin, end]},
// "__metadata__": {string: string}}, then the tensor bytes, offsets relative to the byte after
// the header. Unlike a pickle (pytorch_model.bin) it cannot run code when read, and every
// offset can be checked against the file before a byte of it is used: that is what we do.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::encoder {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

std::size_t dtypeSize(DType dtype) noexcept;
std::string_view dtypeName(DType dtype) noexcept;  ///< "F32", as the format spells it
/// The dtype spelled `name` ("F32", "BOOL"...), or nullopt for one this engine does not read.
std::optional<DType> parseDType(std::string_view name) noexcept;

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;   ///< empty for a scalar
    std::uint64_t begin = 0, end = 0;  ///< byte range in the data section
    std::uint64_t elementCount() const noexcept;
};

/// A safetensors file read into memory after validation. Errors (all Error / ParseError naming
/// the file): file shorter than 8 bytes, header length beyond the file or above 100 MB, header
/// not a JSON object, unknown dtype, negative or overflowing shape, offsets out of order, past
/// the end of the file, overlapping, leaving holes, or not matching shape x dtype size.
class SafetensorsFile {
public:
    static SafetensorsFile read(const std::filesystem::path& file);

    const std::filesystem::path& path() const noexcept { return path_; }
    /// In file order (by begin offset).
    std::span<const TensorInfo> tensors() const noexcept { return tensors_; }
    const TensorInfo* find(std::string_view name) const noexcept;
    /// The tensor's bytes (little-endian, row-major).
    std::span<const std::byte> bytes(const TensorInfo& tensor) const;
    const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }

private:
    std::filesystem::path path_;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, std::string> metadata_;
    std::map<std::string, std::size_t, std::less<>> index_;  // name -> position in tensors_
    std::vector<std::byte> data_;                            // the data section
};

/// Collects tensors and writes one safetensors file atomically. Metadata {"format": "pt"} is
/// always written: transformers refuses a checkpoint without it.
class SafetensorsWriter {
public:
    /// Copies the bytes; Error for a duplicate name or a byte count that does not match the
    /// shape and dtype.
    void add(std::string name, DType dtype, std::vector<std::int64_t> shape, std::span<const std::byte> bytes);
    void setMetadata(std::string key, std::string value);
    /// Header padded with spaces to a multiple of 8 bytes (the reference does, so that tensors
    /// are aligned); tensors laid out in name order.
    void write(const std::filesystem::path& file) const;

private:
    struct Pending {
        std::string name;
        DType dtype;
        std::vector<std::int64_t> shape;
        std::vector<std::byte> bytes;
    };
    std::vector<Pending> tensors_;
    std::map<std::string, std::string> metadata_;
};

}  // namespace linkscope::encoder
