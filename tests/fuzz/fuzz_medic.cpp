// loadDictionary (kb/dictionary_loader.h): MEDIC and BioSyn dictionaries, IDS||NAME|NAME...;
// also detectKbFormat (project/loaded_project.h), which judges a vocabulary from its first line.
// Strict, then lenient.
//
// Vocabulary lines are short (the loader refuses lines over 16 MiB); 64 KiB is hundreds of
// entries. 1 GiB of RSS, no allocation of 256 MiB from 64 KiB, 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
// fuzz-dict: kb.dict
#include "fuzz_support.h"
#include "kb/dictionary_loader.h"
#include "project/loaded_project.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "dictionary.txt";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("detectKbFormat", [&] { detectKbFormat(file); });
    fuzz::expectErrorOr("loadDictionary (strict)", [&] { kb::loadDictionary(file); });
    fuzz::expectErrorOr("loadDictionary (lenient)", [&] {
        kb::DictionaryOptions options;
        options.lenient = true;
        kb::loadDictionary(file, options);
    });
    return 0;
}
