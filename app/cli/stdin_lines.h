#pragma once
// Reading the texts of `tokenize` and `encode` from standard input: one text per line, valid
// UTF-8 (an invalid line is an error naming "<stdin>" and the line), "\r\n" accepted, a leading
// byte-order mark dropped. A line is at most kMaxStdinLineBytes: the texts are names and
// sentences, and a line without end (a binary piped in by mistake) must not take the memory.
#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::cli {

inline constexpr std::size_t kMaxStdinLineBytes = std::size_t{1} << 20;

class StdinLines {
public:
    explicit StdinLines(std::istream& in, std::size_t maxLineBytes = kMaxStdinLineBytes)
        : in_(&in), maxLineBytes_(maxLineBytes) {}
    /// The next line, or nothing at the end of the input. Throws ParseError for invalid UTF-8 or
    /// a line longer than the cap (before reading more of it than the cap).
    std::optional<std::string> next();
    /// Up to `count` lines (fewer at the end of the input).
    std::vector<std::string> take(std::size_t count);
    std::size_t lineNumber() const noexcept { return line_; }

private:
    std::istream* in_;
    std::size_t maxLineBytes_;
    std::size_t line_ = 0;
};

}  // namespace linkscope::cli
