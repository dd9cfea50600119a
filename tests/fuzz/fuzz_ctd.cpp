// loadCtd (kb/ctd_loader.h): CTD_diseases.tsv / CTD_chemicals.tsv. Read with the kind taken
// from the "# Fields:" header (strict and lenient), and as each given kind (which lets a file
// without the header be read in CTD's standard column order).
//
// As for the other vocabularies: 64 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: kb.dict
#include "fuzz_support.h"
#include "kb/ctd_loader.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "CTD_diseases.tsv";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("loadCtd (auto, strict)", [&] { kb::loadCtd(file); });
    fuzz::expectErrorOr("loadCtd (auto, lenient)", [&] {
        kb::CtdOptions options;
        options.lenient = true;
        kb::loadCtd(file, options);
    });
    fuzz::expectErrorOr("loadCtd (diseases, lenient)", [&] {
        kb::CtdOptions options;
        options.lenient = true;
        options.kind = kb::CtdKind::Diseases;
        kb::loadCtd(file, options);
    });
    fuzz::expectErrorOr("loadCtd (chemicals, strict)", [&] {
        kb::CtdOptions options;
        options.kind = kb::CtdKind::Chemicals;
        kb::loadCtd(file, options);
    });
    return 0;
}
