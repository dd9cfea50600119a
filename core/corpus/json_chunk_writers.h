#pragma once
// Writing BioC JSON and BigBio JSON lines a chunk of documents at a time (for `link`, which
// streams), with the bytes writeBioCJson and writeBigBio write for the same documents at once.
// Both replace their file atomically on commit(), and count the bytes and CRC-32 of what they
// wrote, as BioCChunkWriter does.
//
// Merging parts written separately: a BigBio part is whole lines, parts join as they are. A BioC
// JSON part is its header, its documents separated by kBioCJsonDocumentSeparator, and the footer:
// joining the bodies of two non-empty parts needs that separator between them.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "corpus/bigbio_writer.h"
#include "corpus/bioc_json_writer.h"
#include "util/atomic_file.h"
#include "util/checksummed_writer.h"

namespace linkscope {

class BioCJsonChunkWriter {
public:
    /// `options`' source must be given (Error when empty); the date is today's in UTC when empty,
    /// taken once here. Its extraInfons is not used (see write()).
    BioCJsonChunkWriter(const std::filesystem::path& target, BioCWriteOptions options);

    /// Writes the chunk's documents; `extraInfons` takes the chunk's document and mention index.
    void write(const Corpus& chunk, const std::function<BioCInfons(std::size_t, std::size_t)>& extraInfons = {});
    /// Writes the footer and completes the file.
    void commit();

    std::size_t documents() const noexcept { return documents_; }
    std::uint64_t bytes() const noexcept { return out_.written(); }
    std::uint32_t crc32() const noexcept { return out_.checksum(); }
    std::size_t headerBytes() const noexcept { return header_.size(); }
    std::size_t footerBytes() const noexcept { return kBioCJsonFooter.size(); }

private:
    AtomicFileWriter file_;
    ChecksummedWriter out_;
    std::string header_;
    std::size_t documents_ = 0;
};

class BigBioChunkWriter {
public:
    explicit BigBioChunkWriter(const std::filesystem::path& target);

    /// Writes the chunk's documents, one line each; `candidates` takes the chunk's document and
    /// mention index (BigBioWriteOptions::candidates). Adds to summary().
    void write(const Corpus& chunk,
               const std::function<std::vector<BigBioCandidate>(std::size_t, std::size_t)>& candidates = {});
    void commit();

    const BigBioExportSummary& summary() const noexcept { return summary_; }
    std::uint64_t bytes() const noexcept { return out_.written(); }
    std::uint32_t crc32() const noexcept { return out_.checksum(); }

private:
    AtomicFileWriter file_;
    ChecksummedWriter out_;
    BigBioExportSummary summary_;
};

}  // namespace linkscope
