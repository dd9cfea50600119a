#include "corpus/corpus_chunk_source.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "corpus/bioc_json_reader.h"
#include "corpus/brat_reader.h"
#include "corpus/duplicate_documents.h"
#include "corpus/raw_chunk_parser.h"

namespace linkscope {
namespace {

// Notes are kept once per message; past this many distinct ones the rest are counted only.
constexpr std::size_t kMaxNotes = 1000;
// What readBigBio says of a file without a document.
constexpr const char* kNoBigBioDocument = "empty file (no BigBio document)";

}  // namespace

CorpusChunkSource::CorpusChunkSource(const std::filesystem::path& input, CorpusFormat format, CorpusPart part,
                                     std::size_t chunkBytes)
    : input_(input), format_(format), part_(part), chunkBytes_(std::max<std::size_t>(1, chunkBytes)) {
    if (format == CorpusFormat::PubTator || format == CorpusFormat::BioC || format == CorpusFormat::BigBio) {
        reader_ = std::make_unique<DocumentChunkReader>(input, format, part, chunkBytes_);
        return;
    }
    if (format == CorpusFormat::BioCJson) {
        json_ = std::make_unique<BioCJsonDocumentReader>(input, part);
        return;
    }
    if (part.count != 1)
        throw Error(input.string() + ": a brat folder is not split into parts (it is one file pair per document)");
    std::error_code ec;
    if (!std::filesystem::is_directory(input, ec)) throw ParseError(input.string(), 0, "not a folder of brat files");
    std::vector<std::filesystem::path> textFiles;
    for (const auto& entry : std::filesystem::directory_iterator(input)) {
        if (!entry.is_regular_file()) continue;
        if (entry.path().extension() == ".ann")
            annFiles_.push_back(entry.path());
        else if (entry.path().extension() == ".txt")
            textFiles.push_back(entry.path());
    }
    if (annFiles_.empty()) throw ParseError(input.string(), 0, "no .ann files (brat standoff) in the folder");
    std::sort(annFiles_.begin(), annFiles_.end());
    std::sort(textFiles.begin(), textFiles.end());
    for (const auto& text : textFiles) {
        auto ann = text;
        ann.replace_extension(".ann");
        if (!std::binary_search(annFiles_.begin(), annFiles_.end(), ann))
            note(Diagnostic{text.string(), 0, "no " + ann.filename().string() + " beside it; the text was not read"});
    }
}

CorpusChunkSource::~CorpusChunkSource() = default;

void CorpusChunkSource::note(Diagnostic diagnostic) {
    if (notedMessages_.size() >= kMaxNotes) return;
    if (notedMessages_.insert(diagnostic.message).second) notes_.push_back(std::move(diagnostic));
}

std::vector<Diagnostic> CorpusChunkSource::takeNotes() { return std::exchange(notes_, {}); }

void CorpusChunkSource::keepNew(Corpus& corpus) {
    for (Diagnostic& diagnostic : corpus.diagnostics) note(std::move(diagnostic));
    corpus.diagnostics.clear();
    bool repeated = false;
    for (const Document& document : corpus.documents())
        if (pmids_.count(document.pmid()) > 0) repeated = true;
    if (repeated) {
        Corpus kept(corpus.name);
        kept.layout = corpus.layout;
        kept.sourceFiles = corpus.sourceFiles;
        for (Document& document : corpus.documents()) {
            if (pmids_.count(document.pmid()) > 0) {
                note(Diagnostic{document.sourceFile, document.sourceLine,
                                "document " + document.pmid() + " read a second time; the first copy is kept"});
                continue;
            }
            kept.add(std::move(document));
        }
        corpus = std::move(kept);
    }
    for (const Document& document : corpus.documents()) pmids_.insert(document.pmid());
    documents_ += corpus.size();
}

bool CorpusChunkSource::next(CorpusChunk& chunk) {
    if (finished_) return false;
    if (format_ == CorpusFormat::Brat) return nextBrat(chunk);
    if (json_) return nextBioCJson(chunk);
    RawChunk raw;
    if (!reader_->next(raw)) {
        finished_ = true;
        // A part may hold no document; the whole file without one is what its reader says of it.
        if (gaveChunk_ || part_.count != 1) return false;
        if (format_ == CorpusFormat::PubTator)
            throw ParseError(input_.string(), 0, "no documents (expected PMID|t|title lines)");
        if (format_ == CorpusFormat::BigBio) throw ParseError(input_.string(), 0, kNoBigBioDocument);
        raw.atStart = raw.atEnd = true;
        raw.firstLine = 1;
        chunk.corpus = parseBioCChunk(reader_->header(), raw, input_.string());
        chunk.atStart = chunk.atEnd = true;
        keepNew(chunk.corpus);
        return true;
    }
    gaveChunk_ = true;
    chunk.corpus = format_ == CorpusFormat::PubTator ? parsePubTatorChunk(raw, input_.string())
                   : format_ == CorpusFormat::BigBio ? parseBigBioChunk(raw, input_.string())
                                                     : parseBioCChunk(reader_->header(), raw, input_.string());
    chunk.atStart = raw.atStart;
    chunk.atEnd = raw.atEnd;
    keepNew(chunk.corpus);
    if (raw.atEnd && format_ == CorpusFormat::PubTator && documents_ == 0 && part_.count == 1)
        throw ParseError(input_.string(), 0, "no documents (expected PMID|t|title lines)");
    if (raw.atEnd && format_ == CorpusFormat::BigBio && documents_ == 0 && part_.count == 1)
        throw ParseError(input_.string(), 0, kNoBigBioDocument);
    return true;
}

bool CorpusChunkSource::nextBioCJson(CorpusChunk& chunk) {
    chunk.corpus = Corpus("chunk");
    chunk.corpus.sourceFiles.push_back(input_.string());
    chunk.atStart = !gaveChunk_;
    chunk.atEnd = false;
    const std::uint64_t start = json_->bytesRead();
    while (json_->bytesRead() - start < chunkBytes_) {
        std::optional<Document> document = json_->next();
        if (!document) {
            finished_ = true;
            chunk.atEnd = true;
            chunk.corpus.diagnostics = json_->diagnostics();
            break;
        }
        addKeepingFirstCopy(chunk.corpus, std::move(*document));
    }
    if (chunk.corpus.empty() && chunk.atEnd && gaveChunk_ && chunk.corpus.diagnostics.empty()) return false;
    gaveChunk_ = true;
    keepNew(chunk.corpus);
    return true;
}

bool CorpusChunkSource::nextBrat(CorpusChunk& chunk) {
    if (nextAnn_ >= annFiles_.size()) {
        finished_ = true;
        return false;
    }
    chunk.corpus =
        Corpus(input_.filename().empty() ? input_.parent_path().filename().string() : input_.filename().string());
    chunk.corpus.sourceFiles.push_back(input_.string());
    chunk.atStart = nextAnn_ == 0;
    std::uintmax_t bytes = 0;
    while (nextAnn_ < annFiles_.size() && bytes < chunkBytes_) {
        const auto& ann = annFiles_[nextAnn_++];
        std::error_code ec;
        const auto size = std::filesystem::file_size(ann, ec);
        bytes += ec ? 0 : size;
        chunk.corpus.add(readBratDocument(ann, chunk.corpus.diagnostics));
    }
    chunk.atEnd = nextAnn_ >= annFiles_.size();
    keepNew(chunk.corpus);
    return true;
}

double CorpusChunkSource::fraction() const noexcept {
    if (reader_) return reader_->fraction();
    if (json_) return json_->fraction();
    return annFiles_.empty() ? 1.0 : static_cast<double>(nextAnn_) / static_cast<double>(annFiles_.size());
}

std::uint64_t CorpusChunkSource::bytesRead() const noexcept {
    return reader_ ? reader_->bytesReturned() : json_ ? json_->bytesRead() : 0;
}
std::uint32_t CorpusChunkSource::crc32() const noexcept {
    return reader_ ? reader_->crc32() : json_ ? json_->crc32() : 0;
}

const std::string& CorpusChunkSource::header() const noexcept {
    static const std::string none;
    return reader_ ? reader_->header() : none;
}

}  // namespace linkscope
