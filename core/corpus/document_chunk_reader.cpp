#include "corpus/document_chunk_reader.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "corpus/bigbio_reader.h"
#include "corpus/pubtator_lines.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope {
namespace {

// Bytes decompressed (or read) at a time. Every reader of a gzip file must use the same size:
// the position keys of its documents depend on it.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxHeaderBytes = std::size_t{64} << 20;
constexpr std::string_view kDocumentTag = "<document";

bool endsDocumentTag(char c) noexcept {
    return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool isGzip(const InputFile& file) {
    unsigned char magic[2] = {0, 0};
    const ssize_t n = ::pread(file.descriptor(), magic, sizeof magic, 0);
    return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

// The bytes of the file (decompressed), from an offset, with the position key after each read.
class DocumentChunkReader::Source {
public:
    Source(const std::filesystem::path& path, bool compressed, std::uint64_t offset) : name_(path.string()) {
        if (compressed) {
            gzip_ = openGzipInput(path);
            return;
        }
        file_.emplace(InputFile::open(path));
        offset_ = offset;
    }

    std::size_t read(char* out, std::size_t bytes) {
        if (gzip_) {
            std::size_t total = 0;
            while (total < bytes) {
                const int n = gzread(gzip_.get(), out + total, static_cast<unsigned>(bytes - total));
                if (n < 0) {
                    int code = 0;
                    const char* message = gzerror(gzip_.get(), &code);
                    throw ParseError(name_, 0, std::string("damaged gzip stream: ") + (message ? message : "error"));
                }
                if (n == 0) break;
                total += static_cast<std::size_t>(n);
            }
            return total;
        }
        std::size_t total = 0;
        while (total < bytes) {
            const ssize_t n = ::pread(file_->descriptor(), out + total, bytes - total, static_cast<off_t>(offset_));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw ParseError(name_, 0, std::string("cannot read: ") + std::strerror(errno));
            if (n == 0) break;
            total += static_cast<std::size_t>(n);
            offset_ += static_cast<std::uint64_t>(n);
        }
        return total;
    }

    /// The compressed bytes consumed so far (gzip only).
    std::uint64_t key() const { return gzip_ ? static_cast<std::uint64_t>(gzoffset(gzip_.get())) : offset_; }

private:
    std::string name_;
    GzipInput gzip_;
    std::optional<InputFile> file_;
    std::uint64_t offset_ = 0;
};

DocumentChunkReader::DocumentChunkReader(const std::filesystem::path& path, CorpusFormat format, CorpusPart part,
                                         std::size_t chunkBytes)
    : format_(format), part_(part), chunkBytes_(std::max<std::size_t>(1, chunkBytes)), name_(path.string()) {
    if (format != CorpusFormat::PubTator && format != CorpusFormat::BioC && format != CorpusFormat::BigBio)
        throw Error(name_ + ": " + std::string(corpusFormatName(format)) + " is not read in chunks of documents");
    if (part.count == 0 || part.index >= part.count)
        throw Error("part " + std::to_string(part.index) + " of " + std::to_string(part.count) +
                    ": the part must be below the number of parts");
    {
        const InputFile file = InputFile::open(path);
        fileBytes_ = file.size();
        compressed_ = isGzip(file);
    }
    const auto bound = [this](std::size_t index) {
        return static_cast<std::uint64_t>(static_cast<unsigned __int128>(fileBytes_) * index / part_.count);
    };
    low_ = bound(part.index);
    high_ = part.index + 1 == part.count ? std::numeric_limits<std::uint64_t>::max() : bound(part.index + 1);
    if (format == CorpusFormat::BioC) readHeader(path);
    // A plain file's part is entered one byte before its range: a document start at the range's
    // first byte is a line start only when the byte before it ends a line.
    const std::uint64_t offset = compressed_ || low_ == 0 ? 0 : low_ - 1;
    source_ = std::make_unique<Source>(path, compressed_, offset);
    bufferStart_ = offset;
    linesKnown_ = offset == 0;
}

DocumentChunkReader::~DocumentChunkReader() = default;

void DocumentChunkReader::readHeader(const std::filesystem::path& path) {
    Source source(path, compressed_, 0);
    std::string text;
    std::size_t searched = 0;
    for (;;) {
        const std::size_t old = text.size();
        text.resize(old + kBlockBytes);
        text.resize(old + source.read(text.data() + old, kBlockBytes));
        const bool end = text.size() == old;
        for (;;) {
            const std::size_t at = text.find(kDocumentTag, searched);
            if (at == std::string::npos || at + kDocumentTag.size() >= text.size()) {
                if (at != std::string::npos && end) {
                    searched = text.size();
                    break;
                }
                searched = at == std::string::npos ? text.size() - std::min(text.size(), kDocumentTag.size()) : at;
                break;
            }
            if (endsDocumentTag(text[at + kDocumentTag.size()])) {
                text.resize(at);
                header_ = std::move(text);
                return;
            }
            searched = at + 1;
        }
        if (end) {
            header_ = std::move(text);
            return;
        }
        if (text.size() > kMaxHeaderBytes)
            throw ParseError(name_, 0,
                             "no <document> in the first " + std::to_string(kMaxHeaderBytes >> 20) +
                                 " MiB: the BioC collection's header is longer than any BioC file's");
    }
}

bool DocumentChunkReader::fill() {
    if (eof_) return false;
    // What is held is one chunk and the document after it; a BigBio line is bounded.
    if (format_ == CorpusFormat::BigBio && buffer_.size() > chunkBytes_ + kMaxBigBioLineBytes + kBlockBytes)
        throw ParseError(name_, 0,
                         "a line longer than " + std::to_string(kMaxBigBioLineBytes >> 20) +
                             " MiB: more than a BigBio document (one line) may hold");
    const std::size_t old = buffer_.size();
    buffer_.resize(old + kBlockBytes);
    const std::size_t n = source_->read(buffer_.data() + old, kBlockBytes);
    buffer_.resize(old + n);
    if (n == 0) {
        eof_ = true;
        return false;
    }
    if (compressed_) blocks_.push_back({bufferStart_ + old, source_->key()});
    return true;
}

std::uint64_t DocumentChunkReader::keyAt(std::uint64_t offset) const {
    if (!compressed_) return offset;
    std::uint64_t key = 0;
    for (const Block& block : blocks_) {
        if (block.begin > offset) break;
        key = block.key;
    }
    return key;
}

bool DocumentChunkReader::isDocumentStartAt(std::uint64_t lineStart) {
    if (format_ == CorpusFormat::BigBio) return true;  // a line is a document (a blank one is none)
    std::size_t end = std::string::npos;
    for (;;) {
        end = buffer_.find('\n', lineStart - bufferStart_);
        if (end != std::string::npos || !fill()) break;
    }
    if (end == std::string::npos) end = buffer_.size();
    std::string_view line(buffer_.data() + (lineStart - bufferStart_), end - (lineStart - bufferStart_));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return pubtator::classify(line).kind == pubtator::LineKind::Title;
}

std::optional<std::uint64_t> DocumentChunkReader::nextDocumentStart(std::uint64_t from) {
    from = std::max<std::uint64_t>(from, 1);
    if (format_ != CorpusFormat::BioC) {
        // A line start at or after `from`: the byte after a '\n' at or after from - 1.
        std::uint64_t search = from - 1;
        for (;;) {
            while (search >= bufferStart_ + buffer_.size())
                if (!fill()) return std::nullopt;
            const std::size_t at = buffer_.find('\n', search - bufferStart_);
            if (at == std::string::npos) {
                search = bufferStart_ + buffer_.size();
                continue;
            }
            const std::uint64_t candidate = bufferStart_ + at + 1;
            while (candidate >= bufferStart_ + buffer_.size())
                if (!fill()) return std::nullopt;  // a '\n' that ends the file starts nothing
            if (isDocumentStartAt(candidate)) return candidate;
            search = candidate;
        }
    }
    std::uint64_t search = from;
    for (;;) {
        while (search + kDocumentTag.size() >= bufferStart_ + buffer_.size())
            if (!fill()) {
                // At the end: a tag that ends the file has no character after it; none starts.
                return std::nullopt;
            }
        const std::size_t at = buffer_.find(kDocumentTag, search - bufferStart_);
        if (at == std::string::npos) {
            search = bufferStart_ + buffer_.size() - kDocumentTag.size();
            if (!fill()) return std::nullopt;
            continue;
        }
        if (at + kDocumentTag.size() >= buffer_.size()) {
            search = bufferStart_ + at;
            if (!fill()) return std::nullopt;
            continue;
        }
        if (endsDocumentTag(buffer_[at + kDocumentTag.size()])) return bufferStart_ + at;
        search = bufferStart_ + at + 1;
    }
}

void DocumentChunkReader::dropBefore(std::uint64_t offset) {
    const std::size_t count = static_cast<std::size_t>(offset - bufferStart_);
    if (count == 0) return;
    if (linesKnown_)
        lineOfBufferStart_ += static_cast<std::size_t>(
            std::count(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(count), '\n'));
    buffer_.erase(0, count);
    bufferStart_ = offset;
    std::size_t keep = 0;  // the block holding `offset` and those after it
    while (keep + 1 < blocks_.size() && blocks_[keep + 1].begin <= offset) ++keep;
    blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(keep));
}

void DocumentChunkReader::start() {
    started_ = true;
    if (format_ != CorpusFormat::BioC && part_.index == 0) {
        position_ = 0;
        startKey_ = 0;
        return;
    }
    // The first document start whose key is in this part's range (at or after low_).
    std::uint64_t from = compressed_ ? 1 : std::max<std::uint64_t>(low_, 1);
    for (;;) {
        const auto start = nextDocumentStart(from);
        if (!start) {
            done_ = true;
            return;
        }
        const std::uint64_t key = keyAt(*start);
        if (key >= low_) {
            if (key >= high_) {
                done_ = true;  // that document belongs to a later part
                return;
            }
            dropBefore(*start);
            position_ = *start;
            startKey_ = key;
            return;
        }
        dropBefore(*start);
        from = *start + 1;
    }
}

bool DocumentChunkReader::next(RawChunk& chunk) {
    if (!started_) start();
    if (done_) return false;
    std::uint64_t from = position_ + 1;
    std::uint64_t end = 0;
    for (;;) {
        const auto start = nextDocumentStart(from);
        if (!start) {
            end = bufferStart_ + buffer_.size();
            done_ = true;
            chunk.atEnd = true;
            break;
        }
        if (keyAt(*start) >= high_) {
            end = *start;
            done_ = true;
            chunk.atEnd = false;
            break;
        }
        if (*start - position_ >= chunkBytes_) {
            end = *start;
            chunk.atEnd = false;
            break;
        }
        from = *start + 1;
    }
    dropBefore(position_);
    chunk.text.assign(buffer_.data(), static_cast<std::size_t>(end - position_));
    chunk.firstByte = position_;
    chunk.firstLine = linesKnown_ ? lineOfBufferStart_ : 0;
    chunk.atStart = position_ == 0;
    crc_ = static_cast<std::uint32_t>(
        ::crc32_z(crc_, reinterpret_cast<const Bytef*>(chunk.text.data()), chunk.text.size()));
    bytesReturned_ += chunk.text.size();
    positionKey_ = chunk.atEnd ? std::max(keyAt(end), fileBytes_) : keyAt(end);
    dropBefore(end);
    position_ = end;
    return true;
}

double DocumentChunkReader::fraction() const noexcept {
    if (done_) return 1.0;
    const std::uint64_t last = std::min(high_, fileBytes_);
    if (last <= startKey_) return 0.0;
    const std::uint64_t at = std::clamp(positionKey_, startKey_, last);
    return static_cast<double>(at - startKey_) / static_cast<double>(last - startKey_);
}

}  // namespace linkscope
