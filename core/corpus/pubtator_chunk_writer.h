#pragma once
// Writing a PubTator file a chunk of documents at a time, with the bytes writePubTator writes for
// the same documents at once (appendPubTator, one blank line between documents, the file's
// leading and trailing blank lines), so that a corpus larger than memory can be written as it is
// read (document_chunk_reader.h). The file is replaced atomically on commit().
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "corpus/corpus.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"

namespace linkscope {

class PubTatorChunkWriter {
public:
    explicit PubTatorChunkWriter(const std::filesystem::path& target);

    /// Writes the chunk's documents; with `atStart` first its layout's leading blank lines, with
    /// `atEnd` then its trailing ones. Throws Error as appendPubTator does.
    void write(const Corpus& chunk, bool atStart, bool atEnd);
    /// Completes the file (AtomicFileWriter::commit).
    void commit();

    std::size_t documents() const noexcept { return documents_; }
    /// Bytes written so far and their CRC-32.
    std::uint64_t bytes() const noexcept { return out_.written(); }
    std::uint32_t crc32() const noexcept { return out_.checksum(); }

private:
    AtomicFileWriter file_;
    ChecksummedWriter out_;
    std::size_t documents_ = 0;
};

}  // namespace linkscope
