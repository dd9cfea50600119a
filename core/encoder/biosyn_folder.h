#pragma once
// What BioSyn's released model folders (dmis-lab/biosyn-*) hold beside the dense encoder:
// sparse_weight.pt, the learned lambda of S_dense + lambda x S_sparse, a pickled one-element
// tensor read by the restricted unpickler (torch_checkpoint.h); and sparse_encoder.pk, a
// pickled scikit-learn TfidfVectorizer, which is never unpickled (unpickling a scikit-learn
// object runs its classes' code): the sparse index is refit from the dictionary with BioSyn's
// settings instead, which is what that vectorizer was fit with.
#include <filesystem>
#include <optional>

namespace linkscope::encoder {

inline constexpr const char* kBioSynSparseWeightFile = "sparse_weight.pt";
inline constexpr const char* kBioSynSparseEncoderFile = "sparse_encoder.pk";

struct BioSynFolder {
    std::optional<float> sparseWeight;        ///< from sparse_weight.pt, when the folder has one
    std::filesystem::path sparseWeightFile;   ///< that file
    std::filesystem::path sparseEncoderFile;  ///< sparse_encoder.pk when present (never read)
};

/// Looks for BioSyn's files in a checkpoint folder (a folder without them gives an empty
/// result). ParseError naming sparse_weight.pt when it is not a torch.save file of one finite,
/// non-negative F32 / F64 / F16 / BF16 value.
BioSynFolder readBioSynFolder(const std::filesystem::path& directory);

}  // namespace linkscope::encoder
