#include "util/line_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "util/error.h"
#include "util/input_file.h"
#include "util/utf8.h"

namespace linkscope {

// zlib's gz* functions read plain files transparently, so one code path serves both.
struct LineReader::Stream {
    GzipInput file;
};

LineReader::LineReader(const std::filesystem::path& path, LineReaderOptions options)
    : stream_(std::make_unique<Stream>()), fileName_(path.string()), options_(options) {
    // A FIFO, a device or a folder is refused here, before anything waits on it.
    stream_->file = openGzipInput(path, {}, &fileBytes_);
    gzbuffer(stream_->file.get(), 1 << 17);
    if (options_.maxGzipExpansion > 0 && compressed()) {
        const std::uint64_t ratio = options_.maxGzipExpansion;
        const std::uint64_t byRatio = fileBytes_ > UINT64_MAX / ratio ? UINT64_MAX : fileBytes_ * ratio;
        maxDecompressedBytes_ = std::max<std::uint64_t>(byRatio, options_.gzipBytesAlwaysAllowed);
    }
}

LineReader::~LineReader() = default;

bool LineReader::compressed() const noexcept { return gzdirect(stream_->file.get()) == 0; }

void LineReader::fail(const std::string& message) const { throw ParseError(fileName_, lineNumber_, message); }

bool LineReader::fill() {
    if (eof_) return false;
    if (position_ > 0) {
        buffer_.erase(0, position_);
        position_ = 0;
    }
    constexpr std::size_t chunk = 1 << 16;
    const std::size_t old = buffer_.size();
    buffer_.resize(old + chunk);
    const int got = gzread(stream_->file.get(), buffer_.data() + old, static_cast<unsigned>(chunk));
    if (got < 0) {
        int code = 0;
        const char* message = gzerror(stream_->file.get(), &code);
        buffer_.resize(old);
        throw ParseError(fileName_, lineNumber_ + 1,
                         std::string("damaged compressed data: ") + (message ? message : "unknown zlib error"));
    }
    buffer_.resize(old + static_cast<std::size_t>(got));
    decompressedBytes_ += static_cast<std::uint64_t>(got);
    if (maxDecompressedBytes_ > 0 && decompressedBytes_ > maxDecompressedBytes_)
        throw ParseError(fileName_, lineNumber_ + 1,
                         "the gzip file expands to more than " + std::to_string(maxDecompressedBytes_) +
                             " bytes, the most this reader takes from a gzip of " + std::to_string(fileBytes_) +
                             " bytes (" + std::to_string(options_.maxGzipExpansion) + " times its size, at least " +
                             std::to_string(options_.gzipBytesAlwaysAllowed) +
                             " bytes: a bound against gzip bombs); if the file is genuine, decompress it "
                             "(gunzip -k FILE) and give the uncompressed file, which is read up to its own size");
    if (got == 0) {
        // gzread reports a truncated gzip stream as a plain end of file; ask zlib explicitly.
        int code = 0;
        gzerror(stream_->file.get(), &code);
        if (code != Z_OK && code != Z_STREAM_END)
            throw ParseError(fileName_, lineNumber_ + 1, "damaged or truncated compressed data");
        eof_ = true;
        return false;
    }
    return true;
}

void LineReader::detectLineEnd() {
    // A file with '\r' and no '\n' in its first megabyte (classic Mac OS line ends) is read
    // line by line at every '\r'. Any other file ends its lines at '\n' and drops a '\r' before
    // it; a lone '\r' inside one of its lines stays text, as it always did.
    constexpr std::size_t kLook = std::size_t{1} << 20;
    std::size_t scanned = 0;
    while (buffer_.find('\n', position_ + scanned) == std::string::npos) {
        scanned = buffer_.size() - position_;
        if (scanned >= kLook || !fill()) {
            if (buffer_.find('\r', position_) != std::string::npos) separator_ = '\r';
            break;
        }
    }
    lineEndKnown_ = true;
}

bool LineReader::next(std::string& line) {
    if (!lineEndKnown_) detectLineEnd();
    std::size_t searchFrom = position_;
    for (;;) {
        const std::size_t newline = buffer_.find(separator_, searchFrom);
        if (newline != std::string::npos) {
            line.assign(buffer_, position_, newline - position_);
            position_ = newline + 1;
            break;
        }
        if (buffer_.size() - position_ > options_.maxLineBytes) {
            ++lineNumber_;
            fail("line longer than " + std::to_string(options_.maxLineBytes) + " bytes");
        }
        const std::size_t scanned = buffer_.size() - position_;
        if (!fill()) {
            if (position_ >= buffer_.size()) return false;
            line.assign(buffer_, position_, std::string::npos);  // last line without newline
            position_ = buffer_.size();
            break;
        }
        searchFrom = position_ + scanned;  // fill() moved the unread rest to the front
    }
    ++lineNumber_;
    if (line.size() > options_.maxLineBytes)
        fail("line longer than " + std::to_string(options_.maxLineBytes) + " bytes");
    if (separator_ == '\n' && !line.empty() && line.back() == '\r') line.pop_back();
    // A UTF-8 byte-order mark (Windows editors write one) is not part of the first line's text:
    // left there, it would become part of the first identifier or offset the first document.
    if (lineNumber_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (options_.requireUtf8) {
        if (const auto bad = utf8::firstInvalidByte(line))
            fail("invalid UTF-8 at byte " + std::to_string(*bad + 1) + " of the line");
    }
    return true;
}

}  // namespace linkscope
