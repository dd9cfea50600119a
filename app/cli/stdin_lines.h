#pragma once
// Reading the texts of `tokenize` and `encode` from standard input: one text per line, valid
// UTF-8 (an invalid line is an error naming "<stdin>" and the line), "\r\n" accepted.
#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::cli {

class StdinLines {
public:
    explicit StdinLines(std::istream& in) : in_(&in) {}
    /// The next line, or nothing at the end of the input. Throws ParseError for invalid UTF-8.
    std::optional<std::string> next();
    /// Up to `count` lines (fewer at the end of the input).
    std::vector<std::string> take(std::size_t count);
    std::size_t lineNumber() const noexcept { return line_; }

private:
    std::istream* in_;
    std::size_t line_ = 0;
};

}  // namespace linkscope::cli
