#include "kb/load_support.h"

#include <algorithm>

#include "util/utf8.h"

namespace linkscope::kb::detail {

std::string_view trim(std::string_view text) noexcept {
    const auto isSpace = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    };
    while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
    return text;
}

void split(std::string_view text, char separator, std::vector<std::string_view>& fields) {
    fields.clear();
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(separator, start);
        if (end == std::string_view::npos) {
            fields.push_back(text.substr(start));
            return;
        }
        fields.push_back(text.substr(start, end - start));
        start = end + 1;
    }
}

bool allDigits(std::string_view text) noexcept {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    out += text;
    out += '"';
    return out;
}

LineReaderOptions readerOptions(const LoadOptions& options) noexcept {
    LineReaderOptions reader;
    reader.maxLineBytes = options.maxLineBytes;
    // Checked here instead, so that lenient mode can skip a bad line and read on.
    reader.requireUtf8 = false;
    return reader;
}

void LineProblems::malformed(const std::string& message) {
    if (!lenient_) reader_.fail(message);
    diagnostics_.push_back({reader_.fileName(), reader_.lineNumber(), message + " (line skipped)"});
}

void LineProblems::note(const std::string& message) {
    diagnostics_.push_back({reader_.fileName(), reader_.lineNumber(), message});
}

void LineProblems::fileNote(const std::string& message) { diagnostics_.push_back({reader_.fileName(), 0, message}); }

bool LineProblems::next(LineReader& reader, std::string& line) {
    while (reader.next(line)) {
        const auto bad = utf8::firstInvalidByte(line);
        if (!bad) return true;
        malformed("invalid UTF-8 at byte " + std::to_string(*bad + 1) + " of the line");
    }
    return false;
}

}  // namespace linkscope::kb::detail
