// loadUmls (kb/umls_loader.h): MRCONSO.RRF, a NUL, then MRSTY.RRF (no NUL: MRCONSO alone).
// Read with the default filters (strict), then leniently keeping every suppression, two
// languages and only MSH.
//
// RRF rows are a few hundred bytes; 64 KiB, 1 GiB of RSS, no allocation of 256 MiB, 10 s.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: kb.dict
#include <optional>

#include "fuzz_support.h"
#include "kb/umls_loader.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto parts = fuzz::splitParts(fuzz::bytesOf(data, size), 2);
    const auto folder = fuzz::freshFolder("umls");
    const auto mrconso = folder / "MRCONSO.RRF";
    fuzz::writeFile(mrconso, parts[0]);
    std::optional<std::filesystem::path> mrsty;
    if (parts.size() == 2) {
        mrsty = folder / "MRSTY.RRF";
        fuzz::writeFile(*mrsty, parts[1]);
    }
    fuzz::expectErrorOr("loadUmls (strict)", [&] { kb::loadUmls(mrconso, mrsty); });
    fuzz::expectErrorOr("loadUmls (lenient, all kept)", [&] {
        kb::UmlsOptions options;
        options.lenient = true;
        options.languages = {"ENG", "FRE"};
        options.keepObsolete = options.keepEditorSuppressible = options.keepSourceSuppressible = true;
        options.sources = {"MSH"};
        kb::loadUmls(mrconso, mrsty, options);
    });
    return 0;
}
