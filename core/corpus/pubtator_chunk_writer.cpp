#include "corpus/pubtator_chunk_writer.h"

#include <string>

#include "corpus/pubtator_writer.h"
#include "util/error.h"

namespace linkscope {

PubTatorChunkWriter::PubTatorChunkWriter(const std::filesystem::path& target) : file_(target), out_(file_.stream()) {}

void PubTatorChunkWriter::write(const Corpus& chunk, bool atStart, bool atEnd) {
    std::string text;
    if (atStart) text.append(chunk.layout.leadingBlankLines, '\n');
    for (const Document& document : chunk.documents()) {
        if (documents_ > 0) text.append(1, '\n');
        appendPubTator(text, document);
        ++documents_;
    }
    if (atEnd) text.append(chunk.layout.trailingBlankLines, '\n');
    out_.text(text);
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
}

void PubTatorChunkWriter::commit() { file_.commit(); }

}  // namespace linkscope
