// Reading sparse_weight.pt of a BioSyn folder: one tensor of one value.
#include "encoder/biosyn_folder.h"
#include "encoder/checkpoint_files.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "encoder/torch_checkpoint.h"
#include "util/error.h"

namespace linkscope::encoder {
namespace {

double valueOf(const TorchTensor& tensor) {
    const auto* bytes = tensor.bytes.data();
    switch (tensor.dtype) {
        case DType::F32: {
            float value = 0;
            std::memcpy(&value, bytes, sizeof value);
            return value;
        }
        case DType::F64: {
            double value = 0;
            std::memcpy(&value, bytes, sizeof value);
            return value;
        }
        case DType::BF16: {
            std::uint16_t half = 0;
            std::memcpy(&half, bytes, sizeof half);
            return std::bit_cast<float>(std::uint32_t{half} << 16);
        }
        case DType::F16: {
            std::uint16_t half = 0;
            std::memcpy(&half, bytes, sizeof half);
            const int exponent = (half >> 10) & 0x1f;
            const int mantissa = half & 0x3ff;
            const double sign = (half & 0x8000) ? -1.0 : 1.0;
            if (exponent == 0x1f) return mantissa ? NAN : sign * INFINITY;
            if (exponent == 0) return sign * std::ldexp(mantissa, -24);
            return sign * std::ldexp(1024 + mantissa, exponent - 25);
        }
        default:
            return NAN;
    }
}

}  // namespace

BioSynFolder readBioSynFolder(const std::filesystem::path& directory) {
    BioSynFolder folder;
    if (const auto encoder = directory / kBioSynSparseEncoderFile; isRegularFile(encoder))
        folder.sparseEncoderFile = encoder;
    const auto weightFile = directory / kBioSynSparseWeightFile;
    if (!isRegularFile(weightFile)) return folder;
    const auto file = TorchCheckpointFile::read(weightFile);
    const std::string name = weightFile.string();
    if (file.tensors().size() != 1 || file.tensors().front().elementCount() != 1)
        throw ParseError(name, 0, "BioSyn's sparse weight must be one tensor of one value");
    const TorchTensor& tensor = file.tensors().front();
    const double value = valueOf(tensor);
    if (!std::isfinite(value) || value < 0 || value > 1e6)
        throw ParseError(name, 0,
                         "BioSyn's sparse weight " + std::to_string(value) +
                             " is not a finite non-negative number (of dtype " + std::string(dtypeName(tensor.dtype)) +
                             ")");
    folder.sparseWeight = static_cast<float>(value);
    folder.sparseWeightFile = weightFile;
    return folder;
}

}  // namespace linkscope::encoder
