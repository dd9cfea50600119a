// Which torch.save format a file is in, and the checkpoint object both formats build.
#include "encoder/torch_checkpoint.h"

#include <array>

#include "encoder/torch_state_dict.h"
#include "util/allocation_guard.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::encoder {

std::uint64_t TorchTensor::elementCount() const noexcept {
    std::uint64_t count = 1;
    for (const auto dimension : shape) count *= static_cast<std::uint64_t>(dimension);
    return count;
}

TorchCheckpointFile::TorchCheckpointFile(std::filesystem::path path, Parts parts)
    : path_(std::move(path)),
      format_(parts.format),
      buffers_(std::move(parts.buffers)),
      tensors_(std::move(parts.tensors)) {}

const TorchTensor* TorchCheckpointFile::find(std::string_view name) const noexcept {
    for (const auto& tensor : tensors_)
        if (tensor.name == name) return &tensor;
    return nullptr;
}

TorchCheckpointFile TorchCheckpointFile::read(const std::filesystem::path& file) {
    std::array<char, 4> head{};
    {
        InputFileStream in(file, "the checkpoint");
        in.read(head.data(), head.size());
        if (in.gcount() != static_cast<std::streamsize>(head.size()))
            throw ParseError(file.string(), 0, "too short to be a torch.save file");
    }
    return readNamingFile(file, [&] {
        if (head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4)
            return TorchCheckpointFile(file, detail::readZipCheckpoint(file));
        if (static_cast<unsigned char>(head[0]) == 0x80)  // PROTO: the legacy format's first pickle
            return TorchCheckpointFile(file, detail::readLegacyCheckpoint(file));
        throw ParseError(file.string(), 0,
                         "neither a zip archive (torch >= 1.6) nor a pickle (the legacy format): not a file "
                         "torch.save wrote, or one of torch < 0.4 (a tar archive), which is not read");
    });
}

}  // namespace linkscope::encoder
