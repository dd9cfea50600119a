// SafetensorsFile::read (encoder/safetensors.h, safetensors_reader.cpp): an 8-byte header length,
// the JSON header, the tensor bytes. Every tensor it accepts is then looked up and its bytes taken.
//
// The header is checked against the file before it is read (up to 100 MB), so 64 KiB of input
// can announce anything: no allocation of 256 MiB or more may follow from it, 1 GiB of RSS,
// 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: safetensors.dict
#include "encoder/safetensors.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "model.safetensors";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("SafetensorsFile::read", [&] {
        const auto weights = encoder::SafetensorsFile::read(file);
        for (const auto& tensor : weights.tensors()) {
            if (weights.find(tensor.name) != &tensor) {
                std::fprintf(stderr, "\n*** fuzz finding: find(\"%s\") does not return the tensor listed\n",
                             tensor.name.c_str());
                std::abort();
            }
            const auto bytes = weights.bytes(tensor);
            if (bytes.size() != tensor.elementCount() * encoder::dtypeSize(tensor.dtype)) {
                std::fprintf(stderr, "\n*** fuzz finding: tensor \"%s\" holds %zu bytes for its shape's %llu\n",
                             tensor.name.c_str(), bytes.size(),
                             static_cast<unsigned long long>(tensor.elementCount() * encoder::dtypeSize(tensor.dtype)));
                std::abort();
            }
        }
    });
    return 0;
}
