#pragma once
// Helpers shared by the KB loaders (internal to core/kb): field splitting, trimming, and the
// strict/lenient treatment of malformed lines.
#include <string>
#include <string_view>
#include <vector>

#include "kb/load_result.h"
#include "util/line_reader.h"

namespace linkscope::kb::detail {

std::string_view trim(std::string_view text) noexcept;

/// Splits on every `separator` (empty fields kept) into `fields`, which is reused.
void split(std::string_view text, char separator, std::vector<std::string_view>& fields);

bool allDigits(std::string_view text) noexcept;

/// The text in double quotes, for messages.
std::string quoted(std::string_view text);

LineReaderOptions readerOptions(const LoadOptions& options) noexcept;

/// Reports problems of the line the reader is on: as a ParseError (strict) or as a Diagnostic
/// (lenient, and always for notes).
class LineProblems {
public:
    LineProblems(const LineReader& reader, bool lenient, std::vector<Diagnostic>& diagnostics) noexcept
        : reader_(reader), lenient_(lenient), diagnostics_(diagnostics) {}

    /// A malformed line: throws in strict mode; in lenient mode records it and returns, and the
    /// caller skips the line.
    void malformed(const std::string& message);
    /// A non-fatal problem, recorded in both modes.
    void note(const std::string& message);
    /// A problem of the whole file, recorded with line 0.
    void fileNote(const std::string& message);

    /// Reads the next line that is valid UTF-8; invalid lines are malformed() (so skipped in
    /// lenient mode). Returns false at the end of the file.
    bool next(LineReader& reader, std::string& line);

private:
    const LineReader& reader_;
    bool lenient_;
    std::vector<Diagnostic>& diagnostics_;
};

}  // namespace linkscope::kb::detail
