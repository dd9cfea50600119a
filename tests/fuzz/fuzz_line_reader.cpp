// LineReader and readTextFile (util/line_reader.h, util/json_file.h): what every text reader
// above reads through. gzip is detected from the content, so this target is where compressed
// input (seeded with gzipped fixtures) is fuzzed; also byte-order marks and CR / CRLF line ends.
// Read with the default options, then with a 64-byte line limit and without the UTF-8 check,
// then whole with a 4 KiB limit.
//
// A gzip stream can expand a thousandfold: 64 KiB of input may legitimately become tens of MiB
// of lines, read one at a time. 1 GiB of RSS, no single allocation of 256 MiB (a line that
// long would have to be decompressed whole), 10 s per input.
// fuzz-options: -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10
#include "fuzz_support.h"
#include "util/json_file.h"
#include "util/line_reader.h"

using namespace linkscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto file = fuzz::scratch() / "lines.txt";
    fuzz::writeFile(file, fuzz::bytesOf(data, size));
    fuzz::expectErrorOr("LineReader (defaults)", [&] {
        LineReader reader(file);
        std::string line;
        while (reader.next(line)) (void)reader.lineNumber();
        (void)reader.compressed();
    });
    fuzz::expectErrorOr("LineReader (64-byte lines, no UTF-8 check)", [&] {
        LineReaderOptions options;
        options.maxLineBytes = 64;
        options.requireUtf8 = false;
        LineReader reader(file, options);
        std::string line;
        while (reader.next(line)) (void)reader.lineNumber();
    });
    fuzz::expectErrorOr("readTextFile (4 KiB)", [&] { (void)readTextFile(file, 4096); });
    return 0;
}
