#pragma once
// Private to the torch checkpoint readers: from the values a state dict pickle declared to
// tensors over storage bytes, the part both formats share.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "encoder/pickle_machine.h"
#include "encoder/torch_checkpoint.h"

namespace linkscope::encoder::detail {

struct DeclaredTensor {
    std::string name;
    std::size_t use = 0;  ///< index into Machine::tensors()
};

/// The tensors of the pickle's root value: a dict of str to tensors (in pickle order), or one
/// tensor (named ""). ParseError naming `file` for any other root, a non-str key, a value that
/// is not a tensor, or a key given twice.
std::vector<DeclaredTensor> declaredTensors(const pickle::Machine& machine, pickle::ValueId root,
                                            const std::string& file);

/// Each storage key the tensors use, with its dtype and element count. ParseError when two uses
/// of one key disagree on either.
std::map<std::string, pickle::StorageUse> storagesOf(const pickle::Machine& machine,
                                                     const std::vector<DeclaredTensor>& tensors,
                                                     const std::string& file);

/// Bytes a storage of `numel` elements of `dtype` holds, or ParseError naming `file` and the key
/// when that overflows.
std::uint64_t storageBytes(const pickle::StorageUse& storage, const std::string& file);

/// The tensors over the storages' bytes (`storages` maps each key of storagesOf() to exactly
/// storageBytes() bytes). Contiguous views point into the storage; others are gathered into a
/// buffer of their own. ParseError for a view outside its storage, one with more elements than
/// its storage, or gathered views above four times the bytes of all storages.
TorchCheckpointFile::Parts assembleTensors(const pickle::Machine& machine, const std::vector<DeclaredTensor>& tensors,
                                           std::map<std::string, std::vector<std::byte>> storages,
                                           const std::string& file);

/// The two formats (torch_zip_checkpoint.cpp, torch_legacy_checkpoint.cpp); errors as
/// TorchCheckpointFile::read describes them.
TorchCheckpointFile::Parts readZipCheckpoint(const std::filesystem::path& file);
TorchCheckpointFile::Parts readLegacyCheckpoint(const std::filesystem::path& file);

/// A pickle above this is not a state dict's (a few hundred bytes per tensor).
inline constexpr std::uint64_t kMaxPickleBytes = 256ull << 20;

}  // namespace linkscope::encoder::detail
