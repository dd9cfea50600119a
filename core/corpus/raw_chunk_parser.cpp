#include "corpus/raw_chunk_parser.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "corpus/bigbio_reader.h"
#include "corpus/bioc_reader.h"
#include "corpus/pubtator_reader.h"
#include "util/error.h"

namespace linkscope {
namespace {

// An anonymous in-memory file holding `parts`, named by a path the readers can open (a regular
// file, so InputFile accepts it); closed when destroyed.
class MemoryFile {
public:
    explicit MemoryFile(std::initializer_list<std::string_view> parts) {
        fd_ = ::memfd_create("linkscope-chunk", MFD_CLOEXEC);
        if (fd_ < 0) throw Error(std::string("cannot hold a chunk of documents in memory: ") + std::strerror(errno));
        for (const std::string_view part : parts) {
            std::size_t written = 0;
            while (written < part.size()) {
                const ssize_t n = ::write(fd_, part.data() + written, part.size() - written);
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) {
                    const int error = errno;
                    ::close(fd_);
                    throw Error(std::string("cannot hold a chunk of documents in memory: ") + std::strerror(error));
                }
                written += static_cast<std::size_t>(n);
            }
        }
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~MemoryFile() { ::close(fd_); }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;
    const std::string& path() const noexcept { return path_; }

private:
    int fd_ = -1;
    std::string path_;
};

// Where a line of the text given to the reader lies in the input: lines up to `headerLines`
// are the input's own (a BioC header), the others follow the chunk's first line.
struct LineMap {
    std::string file;
    const RawChunk* chunk = nullptr;
    std::size_t headerLines = 0;

    std::size_t line(std::size_t textLine) const {
        if (textLine == 0) return 0;
        if (textLine <= headerLines) return textLine;
        if (chunk->firstLine == 0) return 0;
        return chunk->firstLine + (textLine - headerLines - 1);
    }
    std::string message(std::size_t textLine, const std::string& message) const {
        if (textLine == 0 || textLine <= headerLines || chunk->firstLine != 0) return message;
        return "line " + std::to_string(textLine - headerLines) + " of the part from byte " +
               std::to_string(chunk->firstByte) + ": " + message;
    }
    void remap(Corpus& corpus, const std::string& memoryPath) const {
        for (Diagnostic& diagnostic : corpus.diagnostics)
            if (diagnostic.file == memoryPath) {
                diagnostic.message = message(diagnostic.line, diagnostic.message);
                diagnostic.line = line(diagnostic.line);
                diagnostic.file = file;
            }
        for (Document& document : corpus.documents()) {
            document.sourceFile = file;
            document.sourceLine = line(document.sourceLine);
        }
        corpus.sourceFiles = {file};
    }
};

template <typename Read>
Corpus readMapped(const MemoryFile& memory, const LineMap& map, Read&& read) {
    try {
        Corpus corpus = read(memory.path());
        map.remap(corpus, memory.path());
        return corpus;
    } catch (const ParseError& e) {
        if (e.file() != memory.path()) throw;
        throw ParseError(map.file, map.line(e.line()), map.message(e.line(), e.message()));
    }
}

}  // namespace

Corpus parsePubTatorChunk(const RawChunk& chunk, const std::string& fileName) {
    const MemoryFile memory({chunk.text});
    PubTatorOptions options;
    options.allowEmpty = true;
    options.name = "chunk";
    return readMapped(memory, LineMap{fileName, &chunk, 0},
                      [&options](const std::string& path) { return readPubTator(path, options); });
}

Corpus parseBioCChunk(const std::string& header, const RawChunk& chunk, const std::string& fileName) {
    constexpr std::string_view kFooter = "</collection>\n";
    const MemoryFile memory({header, chunk.text, chunk.atEnd ? std::string_view() : kFooter});
    const auto headerLines = static_cast<std::size_t>(std::count(header.begin(), header.end(), '\n'));
    return readMapped(memory, LineMap{fileName, &chunk, headerLines},
                      [](const std::string& path) { return readBioC(path); });
}

Corpus parseBigBioChunk(const RawChunk& chunk, const std::string& fileName) {
    if (std::all_of(chunk.text.begin(), chunk.text.end(),
                    [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; })) {
        Corpus none("chunk");
        none.sourceFiles = {fileName};
        return none;
    }
    const MemoryFile memory({chunk.text});
    return readMapped(memory, LineMap{fileName, &chunk, 0}, [](const std::string& path) { return readBigBio(path); });
}

}  // namespace linkscope
