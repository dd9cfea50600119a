#include "corpus/bioc_chunk_writer.h"

#include <chrono>
#include <cstdio>

#include "util/error.h"

namespace linkscope {
namespace {

constexpr std::string_view kClosingTag = "</collection>";

}  // namespace

std::string BioCChunkWriter::today() {
    const auto day =
        std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()));
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%04d%02u%02u", static_cast<int>(day.year()),
                  static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
    return buffer;
}

BioCChunkWriter::BioCChunkWriter(const std::filesystem::path& target, BioCWriteOptions options)
    : file_(target), out_(file_.stream()), options_(std::move(options)) {
    if (options_.source.empty()) throw Error("BioC: a collection written in chunks needs its <source>");
    if (options_.date.empty()) options_.date = today();
    options_.extraInfons = nullptr;
    // The collection without documents: its closing tag's line splits header from footer.
    const std::string empty = formatBioC(Corpus(), options_);
    const std::size_t closing = empty.rfind(kClosingTag);
    const std::size_t lineStart = closing == std::string::npos ? std::string::npos : empty.rfind('\n', closing);
    if (lineStart == std::string::npos) throw Error("BioC: the writer's collection has no closing tag");
    header_ = empty.substr(0, lineStart + 1);
    footer_ = empty.substr(lineStart + 1);
    out_.text(header_);
}

void BioCChunkWriter::write(const Corpus& chunk,
                            const std::function<BioCInfons(std::size_t, std::size_t)>& extraInfons) {
    if (chunk.empty()) return;
    BioCWriteOptions options = options_;
    options.extraInfons = extraInfons;
    const std::string text = formatBioC(chunk, options);
    if (text.size() < header_.size() + footer_.size() || text.compare(0, header_.size(), header_) != 0 ||
        text.compare(text.size() - footer_.size(), footer_.size(), footer_) != 0)
        throw Error("BioC: a chunk's collection does not start and end as the file's");
    out_.bytes(text.data() + header_.size(), text.size() - header_.size() - footer_.size());
    documents_ += chunk.size();
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
}

void BioCChunkWriter::commit() {
    out_.text(footer_);
    if (!out_.good()) throw Error("cannot write " + file_.destination().string());
    file_.commit();
}

}  // namespace linkscope
