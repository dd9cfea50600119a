#pragma once
// Error types of the engine. Every error that comes from reading a file names the file and the
// 1-based line so that a user can open the file at the offending place.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace linkscope {

/// Any failure of the engine that a caller may show to a user as it is.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A problem in an input file. what() reads "FILE:LINE: message" (or "FILE: message" when the
/// problem concerns the whole file, line 0).
class ParseError : public Error {
public:
    ParseError(std::string file, std::size_t line, const std::string& message);

    const std::string& file() const noexcept { return file_; }
    std::size_t line() const noexcept { return line_; }
    const std::string& message() const noexcept { return message_; }

private:
    std::string file_;
    std::size_t line_;
    std::string message_;
};

/// A non-fatal problem found while reading (lenient mode, duplicates, skipped rows). Readers
/// collect these instead of printing them, so that the CLI and the GUI decide how to show them.
struct Diagnostic {
    std::string file;
    std::size_t line = 0;
    std::string message;

    std::string toString() const;
};

}  // namespace linkscope
