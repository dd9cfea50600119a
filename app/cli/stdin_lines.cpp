#include "stdin_lines.h"

#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::cli {

std::optional<std::string> StdinLines::next() {
    std::streambuf* buffer = in_->rdbuf();
    using Traits = std::streambuf::traits_type;
    if (!buffer || Traits::eq_int_type(buffer->sgetc(), Traits::eof())) return std::nullopt;
    ++line_;
    std::string line;
    for (auto c = buffer->sbumpc(); !Traits::eq_int_type(c, Traits::eof()); c = buffer->sbumpc()) {
        if (Traits::to_char_type(c) == '\n') break;
        // "\r\n" counts its '\r' against the cap too: one byte of slack.
        if (line.size() > maxLineBytes_)
            throw ParseError("<stdin>", line_, "line longer than " + std::to_string(maxLineBytes_) + " bytes");
        line.push_back(Traits::to_char_type(c));
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > maxLineBytes_)
        throw ParseError("<stdin>", line_, "line longer than " + std::to_string(maxLineBytes_) + " bytes");
    if (line_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (const auto bad = utf8::firstInvalidByte(line))
        throw ParseError("<stdin>", line_, "invalid UTF-8 at byte " + std::to_string(*bad + 1));
    return line;
}

std::vector<std::string> StdinLines::take(std::size_t count) {
    std::vector<std::string> lines;
    while (lines.size() < count) {
        auto line = next();
        if (!line) break;
        lines.push_back(std::move(*line));
    }
    return lines;
}

}  // namespace linkscope::cli
