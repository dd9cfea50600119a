// TorchCheckpointFile::read (encoder/torch_checkpoint.h): the restricted unpickler, the stored
// zip reader and the legacy format. The first byte chooses how the rest is used: 0, the whole
// file as given (a torch.save file); 1, the pickle of a zip archive (archive/data.pkl) whose
// storages "0" to "3" hold 64 bytes each; 2, the state dict pickle of a legacy file whose
// storages "0" to "3" hold 16 F32 each. Modes 1 and 2 let mutations reach the unpickler without
// first having to keep a zip directory or the legacy header consistent.
//
// Every declared size is checked against the file before it is allocated, so 64 KiB of input
// can announce anything: no allocation of 256 MiB or more may follow from it, 1 GiB of RSS,
// 10 s per input. Every tensor accepted must hold exactly its shape's bytes.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: torch_pickle.dict
#include "../common/torch_file_builder.h"
#include "encoder/torch_checkpoint.h"
#include "fuzz_support.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const auto file = fuzz::scratch() / "pytorch_model.bin";
    const std::string_view rest = fuzz::bytesOf(data + 1, size - 1);
    std::string bytes;
    switch (data[0] % 3) {
        case 0:
            bytes = std::string(rest);
            break;
        case 1: {
            std::vector<std::pair<std::string, std::string>> records = {{"archive/data.pkl", std::string(rest)}};
            for (const char* key : {"0", "1", "2", "3"})
                records.emplace_back(std::string("archive/data/") + key, std::string(64, '\x01'));
            bytes = test::storedZip(records);
            break;
        }
        default: {
            std::vector<std::tuple<std::string, std::uint64_t, std::string>> storages;
            for (const char* key : {"0", "1", "2", "3"}) storages.emplace_back(key, 16, std::string(64, '\x02'));
            bytes = test::legacyTorchFile(std::string(rest), storages);
            break;
        }
    }
    fuzz::writeFile(file, bytes);
    fuzz::expectErrorOr("TorchCheckpointFile::read", [&] {
        const auto checkpoint = encoder::TorchCheckpointFile::read(file);
        for (const auto& tensor : checkpoint.tensors()) {
            if (tensor.bytes.size() != tensor.elementCount() * encoder::dtypeSize(tensor.dtype)) {
                std::fprintf(stderr, "\n*** fuzz finding: tensor \"%s\" holds %zu bytes for its shape\n",
                             tensor.name.c_str(), tensor.bytes.size());
                std::abort();
            }
            volatile std::byte sink{};
            for (const auto byte : tensor.bytes) sink = sink ^ byte;  // every byte readable (ASan)
        }
    });
    return 0;
}
