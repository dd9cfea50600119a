#pragma once
// Writing a BioC XML collection a chunk of documents at a time, with the bytes writeBioC writes
// for the same documents at once: the collection's header (declaration, <source>, <date>, <key>)
// once, each chunk's <document> elements as formatBioC indents them, and the closing tag on
// commit(). The file is replaced atomically on commit(); a collection without documents is
// written as writeBioC writes an empty corpus.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "corpus/bioc_writer.h"
#include "corpus/corpus.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"

namespace linkscope {

class BioCChunkWriter {
public:
    /// `options`' source and date are fixed for every chunk: the source must be given (Error
    /// when empty); the date is today's in UTC when empty, taken once here. Its extraInfons is not used (see write()).
    BioCChunkWriter(const std::filesystem::path& target, BioCWriteOptions options);

    /// Writes the chunk's documents; `extraInfons` takes the chunk's document and mention index.
    void write(const Corpus& chunk, const std::function<BioCInfons(std::size_t, std::size_t)>& extraInfons = {});
    /// Writes the closing tag and completes the file.
    void commit();

    std::size_t documents() const noexcept { return documents_; }
    std::uint64_t bytes() const noexcept { return out_.written(); }
    std::uint32_t crc32() const noexcept { return out_.checksum(); }
    /// The bytes before the first document and after the last (what merging parts keeps once).
    std::size_t headerBytes() const noexcept { return header_.size(); }
    std::size_t footerBytes() const noexcept { return footer_.size(); }

    /// The <date> formatBioC writes for today (UTC), yyyymmdd.
    static std::string today();

private:
    AtomicFileWriter file_;
    ChecksummedWriter out_;
    BioCWriteOptions options_;
    std::string header_;  // up to the first <document>
    std::string footer_;  // the closing tag
    std::size_t documents_ = 0;
};

}  // namespace linkscope
