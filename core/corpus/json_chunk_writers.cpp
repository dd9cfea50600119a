#include "corpus/json_chunk_writers.h"

#include "corpus/bioc_chunk_writer.h"
#include "util/error.h"

namespace linkscope {

BioCJsonChunkWriter::BioCJsonChunkWriter(const std::filesystem::path& target, BioCWriteOptions options)
    : file_(target), out_(file_.stream()) {
    if (options.source.empty()) throw Error("BioC JSON: a collection written in chunks needs its source");
    if (options.date.empty()) options.date = BioCChunkWriter::today();
    header_ = bioCJsonHeader({}, options);
    out_.text(header_);
}

void BioCJsonChunkWriter::write(const Corpus& chunk,
                                const std::function<BioCInfons(std::size_t, std::size_t)>& extraInfons) {
    const auto documents = chunk.documents();
    for (std::size_t d = 0; d < documents.size(); ++d) {
        std::function<BioCInfons(std::size_t)> extra;
        if (extraInfons) extra = [&, d](std::size_t mention) { return extraInfons(d, mention); };
        const std::string text = formatBioCJsonDocument(documents[d], extra);
        if (documents_++ > 0) out_.text(kBioCJsonDocumentSeparator);
        out_.text(text);
    }
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
}

void BioCJsonChunkWriter::commit() {
    out_.text(kBioCJsonFooter);
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
    file_.commit();
}

BigBioChunkWriter::BigBioChunkWriter(const std::filesystem::path& target) : file_(target), out_(file_.stream()) {}

void BigBioChunkWriter::write(const Corpus& chunk,
                              const std::function<std::vector<BigBioCandidate>(std::size_t, std::size_t)>& candidates) {
    const auto documents = chunk.documents();
    for (std::size_t d = 0; d < documents.size(); ++d) {
        std::function<std::vector<BigBioCandidate>(std::size_t)> scored;
        if (candidates) scored = [&, d](std::size_t mention) { return candidates(d, mention); };
        out_.text(formatBigBioDocument(documents[d], summary_, scored) + "\n");
    }
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
}

void BigBioChunkWriter::commit() {
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
    file_.commit();
}

}  // namespace linkscope
