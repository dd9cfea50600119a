#include "util/error.h"

namespace linkscope {
namespace {
std::string locate(const std::string& file, std::size_t line, const std::string& message) {
    if (line == 0) return file + ": " + message;
    return file + ":" + std::to_string(line) + ": " + message;
}
}  // namespace

ParseError::ParseError(std::string file, std::size_t line, const std::string& message)
    : Error(locate(file, line, message)), file_(std::move(file)), line_(line), message_(message) {}

std::string Diagnostic::toString() const { return locate(file, line, message); }

}  // namespace linkscope
