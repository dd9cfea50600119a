#pragma once
// A torch.save file (pytorch_model.bin, sparse_weight.pt) read without running anything: the
// zip format of torch >= 1.6 and the legacy format before it, both through the restricted
// unpickler (pickle_machine.h). What is read is a state dict {name: tensor} or a single tensor;
// each tensor's view (offset, sizes, strides) is checked to lie inside its storage and each
// storage's declared size against the bytes the file holds, before anything is allocated.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "encoder/safetensors.h"

namespace linkscope::encoder {

struct TorchTensor {
    std::string name;  ///< the state dict key; empty for a file that holds one tensor
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::span<const std::byte> bytes;  ///< row-major, little-endian; owned by the file object
    std::uint64_t elementCount() const noexcept;
};

class TorchCheckpointFile {
public:
    enum class Format { Zip, Legacy };

    /// Reads the whole file. ParseError naming the file for: neither format (a tar archive of
    /// torch < 0.4 included); a refused global or opcode in a pickle (the message names it); a
    /// storage or a record of the wrong size, missing, or past the end; a tensor view outside
    /// its storage or larger than it; a big-endian legacy file; a name given twice; a top-level
    /// value that is neither a tensor nor a dict of str to tensors.
    static TorchCheckpointFile read(const std::filesystem::path& file);

    const std::filesystem::path& path() const noexcept { return path_; }
    Format format() const noexcept { return format_; }
    /// In the order the pickle lists them.
    std::span<const TorchTensor> tensors() const noexcept { return tensors_; }
    const TorchTensor* find(std::string_view name) const noexcept;

    // Built by the format readers (torch_zip_checkpoint.cpp, torch_legacy_checkpoint.cpp).
    struct Parts {
        Format format = Format::Zip;
        std::vector<std::vector<std::byte>> buffers;  ///< storages and gathered views
        std::vector<TorchTensor> tensors;
    };
    TorchCheckpointFile(std::filesystem::path path, Parts parts);

private:
    std::filesystem::path path_;
    Format format_ = Format::Zip;
    std::vector<std::vector<std::byte>> buffers_;
    std::vector<TorchTensor> tensors_;
};

}  // namespace linkscope::encoder
